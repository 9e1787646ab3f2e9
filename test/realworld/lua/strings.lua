-- The string library: format, find/match/gmatch/gsub with patterns, rep,
-- byte/char, pack/unpack/packsize, utf8, number <-> string conversions,
-- plus a small text-processing workload. Output must be identical for every
-- build of the interpreter.

local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  print(table.concat(t, " | ", 1, t.n))
end
local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end

print("== format")
local fmts = {
  {"%d %5d %-5d| %05d %+d", 42, 42, 42, 42, 42},
  {"%i %u", -7, 7},
  {"%x %X %#x %o %#o", 255, 255, 255, 8, 8},
  {"%c%c%c", 76, 117, 97},
  {"%e %E %.2e", 12345.678, 0.000123, -1e300},
  {"%f %.3f %10.2f %-10.1f|", math.pi, -math.pi, 1e6 / 7, 2.25},
  {"%g %g %g %g %G", 1e20, 1e-5, 0.1, 100, 1e-20},
  {"%.14g %.17g %.3g", 0.1, 0.1, 2 / 3},
  {"%a %A", 1.0, 0.5},
  {"%s %10s %-10s| %.3s", "str", "right", "left", "truncate"},
  {"%q", "line1\nline2\t\0zero \"quoted\" \\ \r \127 \200"},
  {"%q %q %q %q", 1, -0.0, math.mininteger, 1 / 3},
  {"%q %q %q", math.huge, -math.huge, 2^63},
  {"%%s %5.1s%%", "abc"},
  {"%s %s %s %s", nil, true, 12, 1.5},
  {"%d", 3.0},
  {"%.0f %.0f %.0f %.0f", 0.5, 1.5, 2.5, -0.5},
  {"%20.10f|%-20.10f|", 1 / 7, -1 / 7},
  {"%x", math.mininteger},
  {"%5.2s|%.0s|", "abc", "gone"},
}
for _, f in ipairs(fmts) do print(string.format(table.unpack(f))) end
-- %q output loads back to the same value
for _, v in ipairs{"a\0b\255\n", 0, -1, math.maxinteger, math.mininteger, 0.1, -2.5e-300, 1e308} do
  local back = load("return " .. string.format("%q", v))()
  show(math.type(v) or type(v), back == v, string.format("%q", v))
end
-- long format results
local long = string.format("%s|%s|%s", string.rep("a", 1000), string.rep("b", 2000), string.rep("c", 3000))
show(#long, long:sub(998, 1003), long:sub(-3))
show(string.format("%-99d|", 1):len(), string.format("%99.99f", 1 / 3):len())

print("== tostring / tonumber")
for _, v in ipairs{0, -0.0, 1, -1, 1.0, 1e15, 1e16, 1e100, 2^53, 2^63, -2^63, 0.1, 1 / 3, math.pi,
                   1 / 0, -1 / 0, math.maxinteger, math.mininteger, 3 // 2, 3 / 2, 7 // 2.0, -7 // 2, -7 % 3,
                   7 % -3, -7.5 % 2, 2^-1074, 1e308 * 10} do
  io.write(tostring(v), " ")
end
print()
for _, s in ipairs{"10", "  0x1F  ", "1e2", ".5", "5.", "0x.8p1", "1e", "", " ", "0x", "1 2", "inf", "nan",
                   "9223372036854775807", "9223372036854775808", "-9223372036854775808", "0x7fffffffffffffff",
                   "0xffffffffffffffff", "1" .. string.rep("0", 30)} do
  io.write(string.format("[%s]=%s ", s, tostring(tonumber(s))))
end
print()
show(tonumber("ff", 16), tonumber("zz", 36), tonumber("777", 8), tonumber("102", 2), tonumber("  11  ", 3))
show(math.tointeger(3.0), math.tointeger(3.5), math.tointeger("3"), 10 // 3, 10.0 // 3, 2^2, 10 / 2)
show(string.format("%.17g", 0.1 + 0.2), 0.1 + 0.2 == 0.3, 1e15 + 0.3)

print("== rep, byte, char, sub, case")
show(("ab"):rep(3), ("ab"):rep(3, ", "), ("x"):rep(0), ("x"):rep(-1), (""):rep(5, "-"))
local big = ("0123456789"):rep(100000)
show(#big, big:sub(-5), big:byte(999999), ("xy"):rep(1000, "|"):len())
show(string.byte("hello"), string.byte("hello", 2, 4), string.byte("hello", -1), string.byte("hello", 10))
show(string.char(), string.char(72, 101, 108, 108, 111), #string.char(0, 0, 0))
local all = {}
for i = 0, 255 do all[#all + 1] = string.char(i) end
all = table.concat(all)
local bytes = {all:byte(1, -1)}
show(#all, #bytes, bytes[1], bytes[256], all == string.char(table.unpack(bytes)))
show(("Hello World"):upper(), ("Hello World"):lower(), ("abc"):reverse(), (""):reverse(), ("abc"):len())
show(("hello"):sub(2), ("hello"):sub(-3), ("hello"):sub(2, -2), ("hello"):sub(0), ("hello"):sub(10),
     ("hello"):sub(-100, 2), ("hello"):sub(3, 2))

print("== find, match, gmatch")
local text = "The quick brown fox jumps over the lazy dog; THE END. 42 apples, 7 pears, 1000 plums."
show(text:find("quick"), text:find("o", 20), text:find("%d+"), text:find(".", 1, true), text:find("xyz"))
show(text:find("(%a+) (%a+)", 5))
show(text:match("(%d+) (%a+)"), text:match("%u%u%u"), text:match("^The"), text:match("^quick"))
show(text:match("()fox()"), text:match("%f[%a]%a+%f[%A]", 30), text:match(".-%."), text:match(".*%."))
show(("key = value"):match("^(%w+)%s*=%s*(%w+)$"))
show(("  trim me  "):match("^%s*(.-)%s*$") .. "|")
show(("[[nested [brackets] here]] tail"):match("%b[]"), ("f(a(b)c)d"):match("%b()"))
show(("2024-01-31T12:34:56Z"):match("(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)"))
show(("abc"):match("((a)(b)(c))"), ("aaa"):match("a-"), ("aaa"):match("a-$"), ("aaab"):match("a*b"))
show(("x=1, y=22, z=333"):find("y=(%d+)"), ("%d"):find("%d", 1, true), ("a.b"):find(".", 2, true))
local words = {}
for w in text:gmatch("%a+") do words[#words + 1] = w end
show(#words, words[1], words[#words])
local pairs_found = {}
for k, v in ("a=1, b=22, ccc=333"):gmatch("(%w+)=(%w+)") do pairs_found[#pairs_found + 1] = k .. ":" .. v end
show(table.concat(pairs_found, " "))
local positions = {}
for p in ("banana"):gmatch("()an") do positions[#positions + 1] = p end
show(table.concat(positions, ","))
local anchored = {}
for w in ("aaa bbb"):gmatch("^%a+") do anchored[#anchored + 1] = w end
show(#anchored, anchored[1])
show(pcall(string.find, "x", "[a"), pcall(string.find, "x", "(()"), pcall(string.match, "x", "%"))
show(pcall(string.gsub, "x", "(", ""), pcall(string.rep, "x", 1 << 40))

print("== gsub")
show(("hello world"):gsub("o", "0"))
show(("hello world"):gsub("o", "0", 1))
show(("hello world"):gsub("(%w+)", "<%1>"))
show(("hello world"):gsub("(%w+) (%w+)", "%2 %1"))
show(("hello world"):gsub("%w+", "%0 %0"))
show(("hello"):gsub("", "-"))
show(("abc"):gsub(".", {a = 1, b = false}))
show(("abc"):gsub("%w", function(c) if c == "b" then return nil end return c:upper() .. c end))
show(("$name is $age years, $unknown"):gsub("%$(%w+)", {name = "Ana", age = 31}))
show(("x = 1 + 2 * 3"):gsub("%s", ""))
show(("one two  three   four"):gsub("%s+", " "))
show(("CamelCaseString"):gsub("(%u)", function(c) return "_" .. c:lower() end))
show(("THE (quick) fox"):gsub("%f[%a]%u+%f[%A]", "the"))
show(("a,b,,c"):gsub(",", ";", 2))
show(("100%"):gsub("%%", "%%%%"))
show(("path/to/file.txt"):gsub("[/.]", {["/"] = "\\", ["."] = "_"}))
show(pcall(string.gsub, "abc", "%w", "%2"))
show(pcall(string.gsub, "abc", "%w", "%"))
show(("abc"):gsub("%w", "%%"))
-- a gsub-driven template expansion and escaping
local template = "<li>{{name}} ({{qty}} x {{price}})</li>"
local items = {{name = "tea & biscuits", qty = 2, price = 1.5}, {name = "<jam>", qty = 1, price = 3}}
for _, it in ipairs(items) do
  local out = template:gsub("{{(%w+)}}", function(k)
    return (tostring(it[k]):gsub("[&<>]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;"}))
  end)
  print(out)
end
-- big gsub
local s = ("abc "):rep(50000)
local r, n = s:gsub("b", "BB")
show(#r, n, r:sub(1, 12))
r, n = s:gsub("%w+", function(w) return #w end)
show(#r, n)

print("== pack / unpack")
local packs = {
  {"i4", 100}, {"<i4", -2}, {">i4", -2}, {"<I2", 65535}, {">I3", 0x123456}, {"b", -128}, {"B", 255},
  {"<h", -1}, {"<H", 0xbeef}, {"<j", math.mininteger}, {"<J", -1}, {"<i16", -3}, {"<I16", 5},
  {"<f", 1.5}, {"<d", -0.1}, {"<n", math.pi}, {"<s1", "hi"}, {"<s4", "hello"}, {"z", "zero"},
  {"c5", "ab"}, {"<i2 x i2", 1, 2}, {"<!4 b i4", 1, 2}, {"<!8 b d", 1, 2.5}, {"<b Xi4 i4", 1, 7},
  {">I1 I2 I4 I8", 1, 2, 3, 4}, {"<T", 12345}, {"=l L", -9, 9},
}
for _, p in ipairs(packs) do
  local packed = string.pack(table.unpack(p))
  local back = table.pack(string.unpack(p[1], packed))
  for i = 1, back.n do back[i] = tostring(back[i]) end
  print(string.format("%-12s %-34s %s", p[1], hex(packed), table.concat(back, " ", 1, back.n)))
end
for _, f in ipairs{"i4", "d", "!8 b d", "c10", "<i3 !4 i8", "s4", "xXi8 i2"} do
  show(f, pcall(string.packsize, f))
end
show(pcall(string.pack, "i1", 200))
show(pcall(string.pack, "i17", 1))
show(pcall(string.unpack, "i4", "abc"))
show(pcall(string.pack, "z", "a\0b"))
show(pcall(string.unpack, "<i9", ("\255"):rep(8) .. "\1"))
show(string.unpack("<i2", "\1\0\2\0", 3))
show(string.unpack("<i2 i2", ("\255\127"):rep(2)))
-- a record format round trip over many records
local recs = {}
for i = 1, 1000 do recs[#recs + 1] = string.pack("<i4 d s1 B", i, i / 8, "r" .. i, i % 256) end
local blob = table.concat(recs)
local pos, sumi, sumd, cnt = 1, 0, 0, 0
while pos <= #blob do
  local i, d, name, b
  i, d, name, b, pos = string.unpack("<i4 d s1 B", blob, pos)
  sumi, sumd, cnt = sumi + i + b, sumd + d, cnt + #name
end
show(#blob, sumi, sumd, cnt)

print("== utf8")
local u = "héllo wörld — ∑ 😀"
show(#u, utf8.len(u), utf8.char(72, 233, 8364, 128512), utf8.codepoint(u, 1, 3))
local cps = {}
for p, c in utf8.codes(u) do cps[#cps + 1] = p .. ":" .. c end
print(table.concat(cps, " "))
show(utf8.offset(u, 3), utf8.offset(u, -1), utf8.len("\xff"), pcall(utf8.codepoint, "\xff"))
show(u:match(utf8.charpattern .. "$") == "😀", #utf8.charpattern)

print("== text processing")
math.randomseed(42)
local vocab = {"lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do",
               "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua"}
local parts = {}
for i = 1, 20000 do
  local w = vocab[math.random(#vocab)]
  if math.random(10) == 1 then w = w:upper() end
  parts[#parts + 1] = w
  if i % 12 == 0 then parts[#parts + 1] = ".\n" end
end
local corpus = table.concat(parts, " ")
local freq = {}
for w in corpus:lower():gmatch("%a+") do freq[w] = (freq[w] or 0) + 1 end
local keys = {}
for k in pairs(freq) do keys[#keys + 1] = k end
table.sort(keys, function(a, b) if freq[a] ~= freq[b] then return freq[a] > freq[b] end return a < b end)
for i = 1, 5 do io.write(keys[i], "=", freq[keys[i]], " ") end
print()
local lines, longest = 0, 0
for line in corpus:gmatch("[^\n]+") do
  lines = lines + 1
  if #line > longest then longest = #line end
end
show(#corpus, lines, longest)
-- CSV with quoted fields
local csv = 'id,name,note\n1,"Smith, J","said ""hi"""\n2,Doe,plain\n3,"multi\nline",x\n'
local function parse_csv_line(line, start)
  local fields, pos = {}, start
  repeat
    if line:find('^"', pos) then
      local txt, c = "", nil
      local i = pos
      repeat
        local a, b, chunk = line:find('^"([^"]*)"', i)
        txt = txt .. chunk
        i = b + 1
        c = line:sub(i, i)
        if c == '"' then txt = txt .. '"' end
      until c ~= '"'
      fields[#fields + 1] = txt
      pos = i + 1
      if c == "\n" or c == "" then return fields, pos end
    else
      local a, b, txt, sep = line:find("^([^,\n]*)([,\n]?)", pos)
      fields[#fields + 1] = txt
      pos = b + 1
      if sep ~= "," then return fields, pos end
    end
  until false
end
local pos = 1
while pos <= #csv do
  local f
  f, pos = parse_csv_line(csv, pos)
  print(#f, table.concat(f, " | "))
end
-- number formatting table
for i = -3, 3 do
  local v = 10.0 ^ (i * 3) * math.pi
  print(string.format("%12.4e %14.6f %8.3g %s", v, v, v, tostring(v)))
end
-- a checksum over many formatted strings
local acc = 0
for i = 1, 20000 do
  local str = string.format("%d:%x:%.3f:%s", i, i * 7, i / 3, ("z"):rep(i % 5))
  for j = 1, #str, 3 do acc = (acc * 31 + str:byte(j)) % 4294967296 end
end
print("checksum", acc)
print("END strings.lua")
