package redis

// The server-side scripts of a scope. Each acquire, refund and update is one
// script, so Redis runs it atomically: no two processes read the same
// tokens. Time comes from the server (TIME), so machines with skewed clocks
// agree on the refill and on CUBIC. The arithmetic is that of the bucket
// package (quota, adaptiveState): the standard bucket earns one token every
// 100ms up to capacity, keeping the remainder of an interval; the adaptive
// limiter is CUBIC over the rate measured in half-second buckets, with the
// AWS SDKs' constants.
//
// KEYS[1] is the scope's hash; ARGV[1] the key's expiry in milliseconds,
// ARGV[2] the capacity, ARGV[3] the script's argument, and ARGV[4], when
// not empty, the time to use instead of TIME (tests compare the scripts
// with the bucket package at exact times). Times are microseconds since
// the epoch.
const prelude = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local key = KEYS[1]
local ttl = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
if ARGV[4] and ARGV[4] ~= '' then now = tonumber(ARGV[4]) end
local interval = 100000

local function refill()
  local v = redis.call('HMGET', key, 'tokens', 'refilled')
  local tokens, at = tonumber(v[1]), tonumber(v[2])
  if tokens == nil or at == nil or tokens < 0 then
    return capacity, now
  end
  if tokens > capacity then tokens = capacity end
  if now < at or tokens >= capacity then return tokens, now end
  local earned = math.floor((now - at) / interval)
  if earned >= capacity - tokens then return capacity, now end
  return tokens + earned, at + earned * interval
end

local function save_bucket(tokens, at)
  redis.call('HSET', key, 'tokens', tokens, 'refilled', string.format('%.0f', at), 'updated', string.format('%.0f', now))
  redis.call('PEXPIRE', key, ttl)
end

local A = {'a_enabled', 'a_fill_rate', 'a_capacity', 'a_tokens', 'a_last_refill', 'a_measured_rate',
  'a_rate_bucket', 'a_request_count', 'a_last_max_rate', 'a_last_throttle', 'a_time_window', 'a_calculated_rate'}
local idle = 600 * 1000000

local function load_adaptive()
  local v = redis.call('HMGET', key, unpack(A))
  local s = {}
  local ok = true
  for i, f in ipairs(A) do
    s[f] = tonumber(v[i])
    if s[f] == nil or s[f] ~= s[f] then ok = false end
  end
  if ok and (s.a_last_refill == 0 or now - s.a_last_refill <= idle) then
    return s, false
  end
  s = {}
  for _, f in ipairs(A) do s[f] = 0 end
  s.a_rate_bucket = math.floor(now / 1000000)
  s.a_last_throttle = now
  return s, true
end

local function save_adaptive(s)
  local args = {}
  for _, f in ipairs(A) do
    table.insert(args, f)
    table.insert(args, string.format('%.17g', s[f]))
  end
  redis.call('HSET', key, 'updated', string.format('%.0f', now), unpack(args))
  redis.call('PEXPIRE', key, ttl)
end

local function arefill(s)
  if s.a_last_refill == 0 then
    s.a_last_refill = now
    return
  end
  local elapsed = (now - s.a_last_refill) / 1000000
  if elapsed > 0 then
    s.a_tokens = math.min(s.a_tokens + elapsed * s.a_fill_rate, s.a_capacity)
  end
  s.a_last_refill = now
end
`

// takeScript: ARGV[3] is the cost, ARGV[5] the reserve the take must leave
// (0 when missing). Returns {1, tokens left} or {0, tokens held,
// microseconds until the refill pays}.
const takeScript = prelude + `
local cost = tonumber(ARGV[3])
local reserve = tonumber(ARGV[5] or '0') or 0
local tokens, at = refill()
if cost + reserve > tokens then
  local missing = math.min(cost + reserve, capacity) - tokens
  return {0, tokens, string.format('%.0f', missing * interval - (now - at))}
end
save_bucket(tokens - cost, at)
return {1, tokens - cost, '0'}
`

// giveScript: ARGV[3] is the refund. Returns the tokens held.
const giveScript = prelude + `
local tokens, at = refill()
tokens = math.min(tokens + tonumber(ARGV[3]), capacity)
save_bucket(tokens, at)
return tokens
`

// sendScript takes a send token of the adaptive limiter. Returns {1, '0'}
// or {0, microseconds until one is there}.
const sendScript = prelude + `
local s, fresh = load_adaptive()
if s.a_enabled == 0 then
  if fresh then save_adaptive(s) end
  return {1, '0'}
end
arefill(s)
if s.a_tokens + 1e-9 >= 1 then
  s.a_tokens = math.max(s.a_tokens - 1, 0)
  save_adaptive(s)
  return {1, '0'}
end
save_adaptive(s)
local rate = math.max(s.a_fill_rate, 0.5)
return {0, string.format('%.0f', math.ceil((1 - s.a_tokens) / rate * 1000000))}
`

// recordScript: ARGV[3] is 1 for a throttling response. Returns the fill
// rate, as a string.
const recordScript = prelude + `
local s = load_adaptive()
local throttled = ARGV[3] == '1'
local sec = now / 1000000
local b = math.floor(sec / 0.5) * 0.5
s.a_request_count = s.a_request_count + 1
if b > s.a_rate_bucket then
  local current = s.a_request_count / (b - s.a_rate_bucket)
  s.a_measured_rate = current * 0.8 + s.a_measured_rate * 0.2
  s.a_request_count = 0
  s.a_rate_bucket = b
elseif b < s.a_rate_bucket then
  s.a_request_count = 0
  s.a_rate_bucket = b
end
-- The rate so far: what the open bucket would fold now, when it proves
-- more than the measured rate (bucket.adaptiveState.rateSoFar).
local measured = math.max(s.a_measured_rate, s.a_request_count / 0.5 * 0.8 + s.a_measured_rate * 0.2)
local function window()
  s.a_time_window = (s.a_last_max_rate * (1 - 0.7) / 0.4) ^ (1 / 3)
end
if throttled then
  local rate = measured
  if s.a_enabled == 1 then rate = math.min(measured, s.a_fill_rate) end
  s.a_last_max_rate = rate
  window()
  s.a_last_throttle = now
  s.a_calculated_rate = rate * 0.7
  s.a_enabled = 1
else
  window()
  local dt = (now - s.a_last_throttle) / 1000000
  s.a_calculated_rate = 0.4 * (dt - s.a_time_window) ^ 3 + s.a_last_max_rate
end
local rate = math.min(s.a_calculated_rate, 2 * measured)
arefill(s)
s.a_fill_rate = math.max(rate, 0.5)
s.a_capacity = math.max(rate, 1)
s.a_tokens = math.min(s.a_tokens, s.a_capacity)
save_adaptive(s)
return string.format('%.17g', s.a_fill_rate)
`

// infoScript reads a scope without changing it. Returns {} when the scope
// has no state, else {tokens, updated, enabled, fill_rate, max_rate,
// measured_rate, last_throttle} as strings.
const infoScript = prelude + `
if redis.call('EXISTS', key) == 0 then return {} end
local tokens = refill()
local v = redis.call('HMGET', key, 'updated', 'a_enabled', 'a_fill_rate', 'a_last_max_rate', 'a_measured_rate', 'a_last_throttle')
return {tostring(tokens), v[1] or '', v[2] or '', v[3] or '', v[4] or '', v[5] or '', v[6] or ''}
`
