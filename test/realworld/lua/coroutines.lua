-- Coroutines: create/resume/yield/status/wrap/close/isyieldable/running,
-- errors inside coroutines (and through wrap), yields across pcall and
-- metamethods, nesting, generators, a scheduler. Output must be identical
-- for every build of the interpreter.

local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  print(table.concat(t, " | ", 1, t.n))
end

print("== basics")
local co = coroutine.create(function(a, b)
  show("start", a, b)
  local c = coroutine.yield(a + b)
  show("got", c)
  local d, e = coroutine.yield(c * 2)
  show("got", d, e)
  return b * 10, "done"
end)
show(coroutine.status(co))
show(coroutine.resume(co, 1, 2))
show(coroutine.status(co))
show(coroutine.resume(co, 21))
show(coroutine.resume(co, "y", "z"))
show(coroutine.status(co))
show(coroutine.resume(co))
show(coroutine.isyieldable())
local main, ismain = coroutine.running()
show(type(main), ismain)
co = coroutine.create(function()
  local me, im = coroutine.running()
  show("inside", coroutine.status(me), im, coroutine.isyieldable())
end)
coroutine.resume(co)
show(pcall(coroutine.yield, 1))
show(coroutine.resume(coroutine.running()))
co = coroutine.wrap(function() return 1 end)
co()
show(pcall(co))

print("== errors inside coroutines")
co = coroutine.create(function(x)
  coroutine.yield(x)
  error("failure inside")
end)
show(coroutine.resume(co, 5))
show(coroutine.resume(co))
show(coroutine.status(co))
show(coroutine.resume(co))
-- error objects cross resume unchanged
local E = setmetatable({code = 77}, {__tostring = function(e) return "E" .. e.code end})
co = coroutine.create(function() error(E) end)
local ok, e = coroutine.resume(co)
show(ok, e == E, tostring(e))
-- runtime error with traceback of the dead coroutine
co = coroutine.create(function()
  local function inner() local t = nil; return t.x end
  local function middle() return inner() + 1 end
  middle()
end)
show(coroutine.resume(co))
print(debug.traceback(co))
print(debug.traceback(co, "with message", 1))
-- wrap propagates errors (with position for strings)
local gen = coroutine.wrap(function() coroutine.yield(1); error("wrapped failure") end)
show(gen())
show(pcall(gen))
show(pcall(gen))
gen = coroutine.wrap(function() error(E) end)
ok, e = pcall(gen)
show(ok, e == E)
gen = coroutine.wrap(function() error("no position", 0) end)
show(pcall(gen))
gen = coroutine.wrap(function() local x = {} + 1 end)
show(pcall(gen))
-- error in a coroutine caught by pcall inside that coroutine
co = coroutine.create(function()
  for i = 1, 3 do
    local ok2, err = pcall(function()
      coroutine.yield("before " .. i)
      if i % 2 == 1 then error("odd " .. i) end
      return i
    end)
    coroutine.yield(tostring(ok2) .. " " .. tostring(err))
  end
  return "finished"
end)
while true do
  local ok2, v = coroutine.resume(co)
  show(ok2, v)
  if coroutine.status(co) == "dead" then break end
end
-- xpcall inside a coroutine, handler yields are not allowed but the body may yield
co = coroutine.create(function()
  return xpcall(function() local v = coroutine.yield("yield in xpcall body"); error("after " .. v) end,
                function(m) return "handled <" .. m .. ">" end)
end)
show(coroutine.resume(co))
show(coroutine.resume(co, "resume value"))
-- errors from resume misuse
show(coroutine.resume(coroutine.create(function() end)))
show(pcall(coroutine.resume, 1))
show(pcall(coroutine.create, 1))
show(pcall(coroutine.wrap(function() coroutine.yield() end)))
-- yield across a C boundary
co = coroutine.create(function() table.sort({3, 2, 1}, function(a, b) coroutine.yield(); return a < b end) end)
show(coroutine.resume(co))
co = coroutine.create(function() return string.gsub("abc", "%w", function(c) coroutine.yield(c) end) end)
show(coroutine.resume(co))

print("== yields across pcall and metamethods")
local mt = {
  __add = function(a, b) return coroutine.yield("add") + a.v + b.v end,
  __index = function(t, k) return coroutine.yield("index " .. k) end,
  __lt = function(a, b) return coroutine.yield("lt") end,
  __concat = function(a, b) return coroutine.yield("concat") end,
  __eq = function(a, b) return coroutine.yield("eq") end,
}
co = coroutine.create(function()
  local a, b = setmetatable({v = 1}, mt), setmetatable({v = 2}, mt)
  local s = a + b
  local f = a.missing
  local lt = a < b
  local c = a .. "x"
  local eq = a == b
  return s, f, lt, c, eq
end)
local replies = {100, "field", true, "joined", false}
local r = {coroutine.resume(co)}
local i = 0
while coroutine.status(co) ~= "dead" do
  show(table.unpack(r))
  i = i + 1
  r = {coroutine.resume(co, replies[i])}
end
show(table.unpack(r))
co = coroutine.create(function()
  local ok2, v = pcall(function()
    local x = coroutine.yield("in pcall 1")
    local ok3, w = pcall(function() return coroutine.yield("in pcall 2") .. x end)
    return w
  end)
  return ok2, v
end)
show(coroutine.resume(co))
show(coroutine.resume(co, "X"))
show(coroutine.resume(co, "Y"))

print("== close")
co = coroutine.create(function()
  local res <close> = setmetatable({}, {__close = function(_, err) print("closing resource", err) end})
  coroutine.yield("holding")
end)
show(coroutine.resume(co))
show(coroutine.close(co))
show(coroutine.status(co))
co = coroutine.create(function()
  local res <close> = setmetatable({}, {__close = function() error("close failed") end})
  coroutine.yield()
end)
coroutine.resume(co)
show(coroutine.close(co))
co = coroutine.create(function() error({code = 3}) end)
coroutine.resume(co)
ok, e = coroutine.close(co)
show(ok, type(e), e.code)
show(coroutine.close(coroutine.create(print)))
show(pcall(coroutine.close, coroutine.running()))

print("== generators")
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a)
  else
    for k = 1, n do
      a[n], a[k] = a[k], a[n]
      permgen(a, n - 1)
      a[n], a[k] = a[k], a[n]
    end
  end
end
local function permutations(a)
  return coroutine.wrap(function() permgen(a) end)
end
local count, first = 0, {}
for p in permutations({"a", "b", "c", "d", "e", "f"}) do
  count = count + 1
  if count <= 5 then first[#first + 1] = table.concat(p) end
end
print(count, table.concat(first, " "))
-- prime sieve: a chain of filter coroutines, each resuming the previous one
local function numbers(n)
  return coroutine.wrap(function() for i = 2, n do coroutine.yield(i) end end)
end
local function filter(p, g)
  return coroutine.wrap(function()
    for x in g do if x % p ~= 0 then coroutine.yield(x) end end
  end)
end
local primes, g = {}, numbers(400)
for p in function() return g() end do
  primes[#primes + 1] = p
  g = filter(p, g)
end
print(#primes, primes[1], primes[#primes], table.concat(primes, ",", 1, 15))
-- nested coroutines: each level resumes the next and passes values back
local function nest(depth)
  if depth == 0 then
    coroutine.yield("leaf")
    return 0
  end
  local inner = coroutine.create(nest)
  local ok2, v = coroutine.resume(inner, depth - 1)
  coroutine.yield(v .. "<" .. depth)
  local ok3, w = coroutine.resume(inner)
  return (w or 0) + depth
end
co = coroutine.create(nest)
show(coroutine.resume(co, 40))
show(coroutine.resume(co))
-- an error deep in nested coroutines, propagated level by level
local function nest_err(depth)
  if depth == 0 then error("deep error") end
  local inner = coroutine.create(nest_err)
  local ok2, err = coroutine.resume(inner, depth - 1)
  error(err .. "/" .. depth, 0)
end
show(coroutine.resume(coroutine.create(nest_err), 60))
-- nesting beyond the C stack limit fails cleanly
local function too_deep(n)
  local c = coroutine.wrap(too_deep)
  return c(n + 1)
end
ok, e = pcall(too_deep, 1)
local _, levels = tostring(e):gsub("coroutines%.lua:%d+: ", "")
print(ok, levels > 100, (tostring(e):gsub("^.*:%d+: ", "")))

print("== scheduler")
local tasks, out = {}, {}
for t = 1, 200 do
  tasks[#tasks + 1] = coroutine.create(function()
    local acc = 0
    for step = 1, t % 7 + 1 do
      acc = acc + step * t
      coroutine.yield()
    end
    if t % 13 == 0 then error("task " .. t .. " failed") end
    return acc
  end)
end
local sum, failures, rounds = 0, 0, 0
while #tasks > 0 do
  rounds = rounds + 1
  local still = {}
  for _, task in ipairs(tasks) do
    local ok2, v = coroutine.resume(task)
    if not ok2 then failures = failures + 1; out[#out + 1] = v
    elseif coroutine.status(task) == "dead" then sum = sum + v
    else still[#still + 1] = task end
  end
  tasks = still
end
print(sum, failures, rounds, out[1], out[#out])
-- many short-lived coroutines
local total = 0
for n = 1, 5000 do
  local w = coroutine.wrap(function(a) local b = coroutine.yield(a * 2); return a + b end)
  total = total + w(n) + w(1)
end
print("total", total)
print("END coroutines.lua")
