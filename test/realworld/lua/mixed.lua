-- Errors thrown from inside C library functions (gsub callbacks, sort
-- comparators, __tostring under string.format, load readers), inside
-- coroutines inside pcall, many times over: every error unwinds C frames
-- with longjmp. Output must be identical for every build of the interpreter.

local function strip(e)
  if type(e) == "table" then return "table r=" .. tostring(e.r) end
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

print("== errors out of C functions")
local caught = {}
local function try(name, f, ...)
  local ok, e = pcall(f, ...)
  caught[#caught + 1] = name .. "=" .. (ok and "ok" or strip(e))
end
for round = 1, 3 do
  caught = {}
  try("gsub", string.gsub, "abcdef", "%w", function(c) if c == "d" then error("gsub cb " .. round) end end)
  try("sort", table.sort, {5, 3, 1, 4, 2}, function(a, b) if a == 1 then error({r = round}) end return a < b end)
  try("format", string.format, "%s", setmetatable({}, {__tostring = function() error("tostring " .. round) end}))
  try("load", function()
    local f, msg = load(function() error("reader " .. round) end)
    error(msg, 0)
  end)
  try("concat", table.concat, {1, 2, setmetatable({}, {})})
  try("gmatch", function() for w in ("a b c"):gmatch("%a") do if w == "b" then error("gmatch " .. w) end end end)
  try("tostring", tostring, setmetatable({}, {__name = "MyType", __tostring = function(t) return 42 end}))
  try("xpcall-in-gsub", string.gsub, "xyz", ".", function(c)
    local ok, v = xpcall(function() error(c) end, function(m) return strip(m):upper() end)
    if c == "z" then error("after " .. v) end
    return v
  end)
  print(round, table.concat(caught, "; "))
end

print("== coroutines inside pcall inside coroutines")
local function worker(id)
  return coroutine.wrap(function()
    for step = 1, 4 do
      local ok, e = pcall(function()
        local inner = coroutine.wrap(function()
          coroutine.yield(step)
          if (id + step) % 3 == 0 then error(string.format("w%d s%d", id, step)) end
          return -step
        end)
        local a = inner()
        local b = inner()
        return a + b
      end)
      coroutine.yield(ok and ("ok " .. e) or ("err " .. strip(e)))
    end
  end)
end
for id = 1, 4 do
  local w = worker(id)
  local out = {}
  for _ = 1, 4 do out[#out + 1] = w() end
  print(id, table.concat(out, ", "))
end

print("== many unwinds")
local n_err, n_ok, acc = 0, 0, 0
for i = 1, 30000 do
  local ok, v = pcall(string.gsub, ("a"):rep(i % 7 + 1), "a", function()
    if i % 4 == 0 then error(i) end
    return "b"
  end)
  if ok then n_ok = n_ok + 1; acc = acc + #v else n_err = n_err + 1; acc = acc + v % 97 end
end
print(n_ok, n_err, acc)
local co_err = 0
for i = 1, 3000 do
  local co = coroutine.create(function(x)
    local t = {}
    for k = 1, x % 10 do t[k] = string.rep("q", k) end
    coroutine.yield(#t)
    error({n = x})
  end)
  local _, n = coroutine.resume(co, i)
  local ok, e = coroutine.resume(co)
  if not ok and e.n == i then co_err = co_err + n end
end
print("coroutine errors", co_err)
-- a deep recursion through pcall, unwound from the bottom at every depth
local function dive(n, limit)
  if n == limit then error("limit " .. limit, 0) end
  local ok, e = pcall(dive, n + 1, limit)
  if n == 0 then return e end
  error(e, 0)
end
local results = {}
for limit = 10, 150, 20 do results[#results + 1] = dive(0, limit) end
print(table.concat(results, " "))
print("END mixed.lua")
