-- Errors: error/pcall/xpcall, error objects, levels, runtime errors,
-- to-be-closed variables, errors through metamethods, deep and C-level
-- recursion. Output must be identical for every build of the interpreter.

local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  print(table.concat(t, " | ", 1, t.n))
end

print("== pcall and error values")
show(pcall(error, "plain message"))
show(pcall(error, "no position", 0))
show(pcall(error))
show(pcall(error, nil))
show(pcall(error, 42))
show(pcall(error, 3.5))
show(pcall(error, true))
show(pcall(function() error("level 1") end))
local function thrower(level) error("from thrower, level " .. level, level) end
local function caller(level) thrower(level) end
show(pcall(caller, 1))
show(pcall(caller, 2))
show(pcall(caller, 3))
show(pcall(function(...) return ... end, 1, nil, 3))
show(select("#", pcall(function() return end)))

print("== error objects")
local Err = {}
Err.__index = Err
Err.__tostring = function(e) return "Err(" .. e.code .. ": " .. e.msg .. ")" end
local function newerr(code, msg) return setmetatable({code = code, msg = msg}, Err) end
local ok, e = pcall(function() error(newerr(404, "not found")) end)
show(ok, getmetatable(e) == Err, e.code, e.msg, tostring(e))
ok, e = pcall(function() error(newerr(1, "inner"), 2) end)
show(ok, e.code, e.msg)
-- rethrow keeps the same object
local orig = newerr(7, "rethrown")
ok, e = pcall(function()
  local ok2, e2 = pcall(error, orig)
  assert(not ok2 and e2 == orig)
  error(e2)
end)
show(ok, e == orig, tostring(e))
-- error with a table without metatable, inspected
ok, e = pcall(error, {list = {1, 2, 3}, name = "tbl"})
show(ok, type(e), e.name, #e.list, e.list[3])

print("== xpcall and handlers")
show(xpcall(function(a, b) return a + b end, print, 3, 4))
show(xpcall(function() error("boom") end, function(m) return "handled: " .. m end))
show(xpcall(function() error(newerr(5, "obj")) end, function(m) return m.code * 10 end))
show(xpcall(function() local x = nil; return x.field end, function(m) return "H:" .. m end))
-- traceback from the handler (positions are part of the output)
ok, e = xpcall(function() caller(1) end, debug.traceback)
print(ok)
print(e)
-- error inside the handler
show(xpcall(function() error("first") end, function(m) error("in handler") end))
-- handler that returns several values: only the first is kept
show(xpcall(function() error("x") end, function(m) return 1, 2, 3 end))
-- nested xpcall, each with its own handler
show(xpcall(function()
  local r = table.pack(xpcall(function() error("inner") end, function(m) return "inner handler: " .. m end))
  error("outer after " .. tostring(r[2]))
end, function(m) return "outer handler: " .. m end))

print("== runtime errors")
local cases = {
  function() local t = nil; return t.x end,
  function() local t = {}; return t.a.b end,
  function() return 1 + {} end,
  function() return "abc" + 1 end,
  function() return "10" + 1 end,
  function() return #nil end,
  function() return nil .. "x" end,
  function() return {} < {} end,
  function() return 1 < "2" end,
  function() local f; f() end,
  function() return math.floor("x") end,
  function() return 1 // 0 end,
  function() return 1 % 0 end,
  function() return 2^53 | 0 end,
  function() return 1.5 | 0 end,
  function() return ("x"):rep(-1) .. undefinedglobal.x end,
  function() return type(string.rep) end,
  function() return setmetatable({}, {__index = function(t, k) error("no field " .. k) end}).missing end,
  function() return setmetatable({}, {__add = function() error({code = "add"}) end}) + 1 end,
  function() return tostring(setmetatable({}, {__tostring = function() return 1 end})) end,
  function() for i = 1, 10, 0 do end end,
  function() return select(-5, 1) end,
  function() return table.concat({1, {}, 3}) end,
  function() return ipairs() end,
  function() return setmetatable(1, {}) end,
  function() return string.format("%d", 1.5) end,
  function() return math.tointeger("8") end,
  function() return assert(false) end,
  function() return assert(nil, "assert message") end,
  function() return assert(false, {code = 9}) end,
  function() return tonumber("z", 36), tonumber("10", 99) end,
}
for i, f in ipairs(cases) do
  local r = table.pack(pcall(f))
  local v = r[2]
  if type(v) == "table" then v = "table code=" .. tostring(v.code) end
  print(i, r[1], tostring(v), r.n)
end

print("== load errors")
for _, src in ipairs{"x = = 1", "return 1 +", "local x <const> = 1; x = 2", "goto nowhere",
                      "for i = 1 do end", "return 'unfinished", "return \"\\q\"", "return 0x", "break",
                      "local a <foo> = 1", string.rep("(", 300) .. "1" .. string.rep(")", 300)} do
  local f, msg = load(src, "=src")
  print(f == nil, msg)
end
show(load("return ...", "chunk")(1, 2, 3))
show(pcall(load("error('in loaded chunk')", "@loaded.lua")))

print("== to-be-closed variables")
local log = {}
local function closer(name)
  return setmetatable({}, {__close = function(_, err)
    log[#log + 1] = name .. (err and (" err=" .. tostring(err)) or "")
  end})
end
do
  local a <close> = closer("a")
  local b <close> = closer("b")
  local c <close> = nil
end
print(table.concat(log, ", ")); log = {}
show(pcall(function()
  local a <close> = closer("a")
  local b <close> = closer("b")
  error("body failed")
end))
print(table.concat(log, ", ")); log = {}
show(pcall(function()
  local a <close> = closer("a")
  local b <close> = setmetatable({}, {__close = function() error("close b failed") end})
  local c <close> = closer("c")
  error("body")
end))
print(table.concat(log, ", ")); log = {}
show(pcall(function()
  local a <close> = closer("a")
  for i = 1, 3 do
    local x <close> = closer("loop" .. i)
    if i == 2 then break end
  end
  return "returned"
end))
print(table.concat(log, ", ")); log = {}
show(pcall(function() local x <close> = 42 end))
-- generic for closes its closing value when the loop is broken
local function iter_with_close()
  local i = 0
  return function() i = i + 1; if i <= 5 then return i end end, nil, nil, closer("for-close")
end
for i in iter_with_close() do if i == 3 then break end end
print(table.concat(log, ", ")); log = {}

print("== recursion")
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(10000))
local function forever(n) return 1 + forever(n + 1) end
ok, e = pcall(forever, 1)
print(ok, (tostring(e):gsub("^.-:%d+: ", "")))
-- errors thrown from the bottom of a deep Lua call chain, caught at the top
local function chain(n) if n == 0 then error("bottom reached") end local r = chain(n - 1); return r end
for _, n in ipairs{1, 10, 100, 1000, 20000} do show(n, pcall(chain, n)) end
-- nested pcalls: every level catches and rethrows, adding its depth
local function nested(n)
  if n == 0 then error("L0") end
  local ok, err = pcall(nested, n - 1)
  error(err .. "<" .. n, 0)
end
ok, e = pcall(nested, 150)
print(ok, #e, e:sub(1, 40), e:sub(-30))
-- C-level recursion (each level goes through a C function) until the limit
local function cdepth(n) return pcall(cdepth, n + 1) end
print(select("#", cdepth(1)) > 0)
local mt = {}
mt.__index = function(t, k) return setmetatable({}, mt)[k] end
ok, e = pcall(function() return setmetatable({}, mt).x end)
print(ok, (tostring(e):gsub("^.-:%d+: ", "")))
-- many errors in a loop (the memory of each must be released)
local count = 0
for i = 1, 20000 do
  local ok2, err = pcall(function(x)
    local t = {x, x * 2}
    if x % 3 == 0 then error(newerr(x, "three")) end
    if x % 5 == 0 then error("five " .. x) end
    return t[2]
  end, i)
  if not ok2 then count = count + 1 end
end
print("errors caught", count)

print("== string conversions in errors")
show(pcall(string.rep))
show(pcall(string.char, 256))
show(pcall(string.format, "%y", 1))
show(pcall(string.format, "%10.123f", 1))
show(pcall(("x").rep, "x", 1e10))
show(pcall(table.insert, {}, 1, 2, 3))
show(pcall(next, {}, "nokey"))
show(pcall(rawset, {}, nil, 1))
show(pcall(setmetatable({}, {__newindex = function() error("readonly", 2) end}).__newindex))
local ro = setmetatable({}, {__newindex = function(t, k) error("readonly field " .. k, 2) end})
show(pcall(function() ro.x = 1 end))
print("END errors.lua")
