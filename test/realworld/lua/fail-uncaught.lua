-- An error nobody catches: lua.c's message handler prints it with a stack
-- traceback on stderr and the interpreter exits with status 1. The run.sh
-- check expects a non-zero exit for scripts named fail-*.lua; stderr and the
-- exit status must be identical for every build of the interpreter.
local Err = setmetatable({}, {__tostring = function(e) return "custom error object " .. e.code end})
Err.__index = Err
local function raise(code) error(setmetatable({code = code}, getmetatable(Err))) end
local gen = coroutine.wrap(function()
  coroutine.yield(1)
  local ok, e = pcall(raise, 1)
  print("caught first", ok, tostring(e))
  raise(2)
end)
print("first", gen())
print("before the uncaught error")
local function level3() gen() end
local function level2() level3() end
level2()
print("END fail-uncaught.lua (not reached)")
