/**
 * The Lua scripts behind every step of the shared state that must be atomic across replicas. Redis
 * runs a script alone, so a check and the write it guards cannot be split by another replica.
 * ioredis sends them by digest (EVALSHA) and again in full after a Redis restart forgot them.
 *
 * Errors a script raises on purpose start with `CT_` so they are told apart from an outage.
 * Times come from Redis (`TIME`), the one clock every replica shares.
 */

/** KEYS: call. ARGV: outcome. 1 when stored, 0 when the call is unknown or already settled. */
export const SETTLE_CALL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'outcome', ARGV[1])
`;

/**
 * KEYS: call, the session's call index, the call counter. ARGV: record JSON, session id, ttl ms.
 * A call recorded again keeps its outcome and its place.
 */
export const PUT_CALL = `
local ttl = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'session', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
if not redis.call('ZSCORE', KEYS[2], KEYS[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), KEYS[1])
end
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`;

/**
 * KEYS: call. ARGV: the prefix of session call indexes. Deletes the call and its place in its
 * session's index in one round trip. The index key is read from the call (not declared in KEYS):
 * fine on one Redis, which is what this state supports (not Redis Cluster).
 */
export const DELETE_CALL = `
local session = redis.call('HGET', KEYS[1], 'session')
redis.call('DEL', KEYS[1])
if session then redis.call('ZREM', ARGV[1] .. session, KEYS[1]) end
return 1
`;

/**
 * KEYS: lease, the fence counter, the thread's fence. ARGV: holder, ttl ms, the fence key's ttl ms,
 * and (0: none) the fence the holder renews.
 * A live lease of another holder: nil. Else {fence, expiresAt}: the same fence when the holder
 * renews, a new one from the counter when it takes the lease. A renewal that comes after its lease
 * ran out (a replica starved of CPU for a moment) keeps its fence while it is still the thread's
 * newest: nobody took the thread in between, so nothing it has in flight is stale.
 */
export const ACQUIRE_LEASE = `
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local holder = redis.call('HGET', KEYS[1], 'holder')
if holder and holder ~= ARGV[1] then return nil end
local fence
local renewing = tonumber(ARGV[4])
if holder then
  fence = tonumber(redis.call('HGET', KEYS[1], 'fence'))
elseif renewing > 0 and tonumber(redis.call('GET', KEYS[3])) == renewing then
  fence = renewing
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
else
  fence = redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[3], fence, 'PX', ARGV[3])
end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'fence', fence)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {fence, now + tonumber(ARGV[2])}
`;

/** KEYS: lease. ARGV: holder, fence. Deletes it only while that holder holds it under that fence. */
export const RELEASE_LEASE = `
local cur = redis.call('HMGET', KEYS[1], 'holder', 'fence')
if cur[1] == ARGV[1] and cur[2] == ARGV[2] then redis.call('DEL', KEYS[1]) return 1 end
return 0
`;

/**
 * KEYS: the thread's fence, log, blobs, meta, the thread index.
 * ARGV: fence (0: no lease), byte cap, ttl ms, thread id, record count n, n records, then digest and
 * bytes of each blob.
 * Refuses (CT_FENCED) an append under a fence older than the thread's, and (CT_TOO_LARGE) one that
 * would take the thread over the cap; else appends everything, refreshes the ttls, returns the size.
 */
export const APPEND = `
local fence = tonumber(ARGV[1])
if fence > 0 then
  local newest = tonumber(redis.call('GET', KEYS[1]) or '0')
  if fence < newest then return redis.error_reply('CT_FENCED ' .. newest) end
end
local cap, ttl, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local added = 0
for i = 6, 5 + n do added = added + #ARGV[i] end
local fresh = {}
for i = 6 + n, #ARGV, 2 do
  if fresh[ARGV[i]] == nil and redis.call('HEXISTS', KEYS[3], ARGV[i]) == 0 then
    fresh[ARGV[i]] = i + 1
    added = added + #ARGV[i + 1]
  end
end
local size = tonumber(redis.call('HGET', KEYS[4], 'bytes') or '0')
if size + added > cap then return redis.error_reply('CT_TOO_LARGE ' .. (size + added)) end
for digest, at in pairs(fresh) do redis.call('HSET', KEYS[3], digest, ARGV[at]) end
for i = 6, 5 + n do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('HSET', KEYS[4], 'threadId', ARGV[4], 'bytes', size + added, 'updatedAt', now)
redis.call('ZADD', KEYS[5], now, ARGV[4])
-- Threads last written a ttl ago have expired: the index forgets them, so it cannot grow without end.
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. (now - ttl))
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
if fence > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return size + added
`;

/**
 * KEYS: log, meta. ARGV: byte cap. {threadId, record...}, nil when there is no thread, CT_TOO_LARGE
 * when the records add up to more than the cap: the lengths are summed inside Redis, so a thread
 * grown past the cap (by a bug or by someone writing to Redis directly) is never sent to us.
 */
export const LOAD = `
local threadId = redis.call('HGET', KEYS[2], 'threadId')
if not threadId then return nil end
local n = redis.call('LLEN', KEYS[1])
local total, out = 0, {threadId}
local step = 256
for from = 0, n - 1, step do
  local chunk = redis.call('LRANGE', KEYS[1], from, from + step - 1)
  for _, item in ipairs(chunk) do
    total = total + #item
    if total > tonumber(ARGV[1]) then return redis.error_reply('CT_TOO_LARGE ' .. total) end
    out[#out + 1] = item
  end
end
return out
`;

/** KEYS: blobs. ARGV: byte cap, digests. The blobs (false when gone), CT_TOO_LARGE past the cap in all. */
export const LOAD_BLOBS = `
local total, out = 0, {}
for i = 2, #ARGV do
  total = total + redis.call('HSTRLEN', KEYS[1], ARGV[i])
  if total > tonumber(ARGV[1]) then return redis.error_reply('CT_TOO_LARGE ' .. total) end
  out[#out + 1] = redis.call('HGET', KEYS[1], ARGV[i])
end
return out
`;
