package redisstore

import "github.com/retry-dev/retry/bucket/redis"

// The server-side scripts. KEYS[1] is the lock, KEYS[2] the sequence's
// hash, KEYS[3] the fence; ARGV[1] is the caller's lock value. Each runs
// atomically, so a write never lands after the lock changed hands.
//
// The fence is the lock's shadow: the holder's value, set with the lock
// and renewed with it, but expiring --kill-after (and a second) later.
// Its holder's supervisor ends the attempt's processes by the time the
// lock expires (command.FenceRun), and stops them sooner with SIGTERM
// only within --kill-after: so while the fence stands over a running
// attempt, that attempt may still run, however the lock ended — its
// holder stopped by SIGSTOP, cut off from Redis, or Redis restarted from
// its append-only file.

// lockScript takes the lock when it is free, holds ARGV[3] (a dead
// holder's value, taken over) or is already the caller's (a call tried
// again after a failover), for ARGV[2] milliseconds, with the fence for
// ARGV[4], and returns {1, HGETALL}; otherwise {0, the holder's value},
// or, when the lock is free but another's fence stands over a running
// attempt, {2, the fence's value, its milliseconds left}. A key of another
// type is an error, before anything is written.
var lockScript = redis.LazyScript{Src: `
local t = redis.call('TYPE', KEYS[2])['ok']
if t ~= 'hash' and t ~= 'none' then
  return redis.error_reply('WRONGTYPE ' .. KEYS[2] .. ' holds a ' .. t .. ', not a retry state')
end
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[3] and cur ~= ARGV[1] then return {0, cur} end
local fence = redis.call('GET', KEYS[3])
if fence and fence ~= ARGV[3] and fence ~= ARGV[1] and t == 'hash' and redis.call('HGET', KEYS[2], 'status') == 'running' then
  return {2, fence, redis.call('PTTL', KEYS[3])}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[4])
return {1, redis.call('HGETALL', KEYS[2])}
`}

// writeScript replaces the hash with the field-value pairs from ARGV[3] on,
// expiring after ARGV[2] milliseconds, if the lock is the caller's: 1;
// otherwise 0 and nothing written.
var writeScript = redis.LazyScript{Src: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`}

// removeScript deletes the hash, the lock and the fence, if the lock is
// the caller's: 1; otherwise 0.
var removeScript = redis.LazyScript{Src: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2], KEYS[1], KEYS[3])
return 1
`}

// releaseScript deletes the lock if it is the caller's, and the fence if
// it is the caller's (its attempt is over: the invocation ends).
var releaseScript = redis.LazyScript{Src: `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 1
`}

// renewScript sets the lock's expiry to ARGV[2] milliseconds, and the
// fence's to ARGV[3], if the lock is the caller's.
var renewScript = redis.LazyScript{Src: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3])
return 1
`}

// showScript returns {the lock's value (empty when free), the hash's expiry in
// ms, HGETALL, the fence's value (empty when none)}.
var showScript = redis.LazyScript{Src: `
return {redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[2]), redis.call('HGETALL', KEYS[2]), redis.call('GET', KEYS[3]) or ''}
`}
