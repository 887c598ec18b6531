package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/redis/rueidis"
)

// trimScript brings a namespace within its bounds (see Redis). KEYS are
// its o, s, m, d, zo and zs; ARGV the openings it keeps, the bytes beyond
// which it is trimmed and those it is trimmed to, the channel of changes
// and the namespace. It reads the lists that describe the entries, never
// the streams, and returns how many openings it dropped.
var trimScript = newScript(`
local o, s, m, d, zo, zs = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local maxOpen, maxBytes, target = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local state = redis.call('HMGET', m, 'b', 'no')
local bytes, opened = tonumber(state[1] or '0'), tonumber(state[2] or '0')
local freed, gone = 0, 0
-- Drops the oldest entries of o (never the newest) while want says so,
-- with the items of zo that describe them: "size count".
local function dropOpenings(want)
  local n, last = 0, redis.call('LLEN', zo) - 1
  while n < last and want() do
    for _, z in ipairs(redis.call('LRANGE', zo, n, math.min(n + 15, last - 1))) do
      if not want() then break end
      local size, k = string.match(z, '^(%d+) (%d+)$')
      freed, n, gone, opened = freed + tonumber(size), n + 1, gone + tonumber(k), opened - tonumber(k)
    end
  end
  if n > 0 then
    redis.call('LTRIM', zo, n, -1)
    redis.call('XTRIM', o, 'MAXLEN', '=', redis.call('LLEN', zo))
  end
end
dropOpenings(function() return opened > maxOpen end)
if bytes - freed > maxBytes then
  -- The oldest entries of s, "size qid qid ..." in zs (q 1 for an
  -- enquiry), their events counted as dropped by their transactions.
  local counts, n = {}, 0
  while bytes - freed > target do
    local zz = redis.call('LRANGE', zs, n, n + 63)
    if #zz == 0 then break end
    for _, z in ipairs(zz) do
      if bytes - freed <= target then break end
      freed, n = freed + tonumber(string.match(z, '^%d+')), n + 1
      for q, id in string.gmatch(z, ' (%d)(%S+)') do
        local c = counts[id]
        if not c then c = {0, 0}; counts[id] = c end
        c[1], c[2] = c[1] + 1, c[2] + tonumber(q)
      end
    end
  end
  if n > 0 then
    redis.call('LTRIM', zs, n, -1)
    redis.call('XTRIM', s, 'MAXLEN', '=', redis.call('LLEN', zs))
  end
  -- The counts outlive their transactions: they are bounded instead.
  if redis.call('HLEN', d) > 8 * maxOpen then redis.call('DEL', d) end
  for id, c in pairs(counts) do
    redis.call('HINCRBY', d, 'n:' .. id, c[1])
    if c[2] > 0 then redis.call('HINCRBY', d, 'q:' .. id, c[2]) end
  end
  -- Then the oldest openings, their transactions with them.
  dropOpenings(function() return bytes - freed > target end)
end
if gone > 0 then
  redis.call('HINCRBY', m, 'no', -gone)
end
if freed > 0 then
  redis.call('HINCRBY', m, 'b', -freed)
  redis.call('HINCRBY', m, 'v', 1)
  redis.call('PUBLISH', ARGV[4], ARGV[5])
end
return gone
`)

// write sends the queue to Redis in batches until Close, then flushes
// what is left.
func (j *Journal) write() {
	defer close(j.done)
	batch := make([]queued, 0, j.opt.Batch)
	for {
		select {
		case q := <-j.queue:
			// A moment's wait gathers the events of concurrent requests
			// into one round trip, which costs Redis far less than many.
			time.Sleep(batchLinger)
			j.flush(j.fill(append(batch[:0], q)))
		case <-j.closed:
			for {
				if batch = j.fill(batch[:0]); len(batch) == 0 {
					return
				}
				j.flush(batch)
			}
		}
	}
}

// fill adds to batch what the queue holds, up to a batch.
func (j *Journal) fill(batch []queued) []queued {
	for len(batch) < j.opt.Batch {
		select {
		case q := <-j.queue:
			batch = append(batch, q)
		default:
			return batch
		}
	}
	return batch
}

// flush writes a batch in one pipelined round trip: one MULTI per
// namespace. Then it trims the namespaces that hold more than their
// bounds.
func (j *Journal) flush(batch []queued) {
	// The namespaces of the batch, in their order of appearance.
	type part struct {
		ns      string
		events  []*queued
		opened  int
		replies int // how many replies EXEC holds
		bytesAt int // the index of the namespace's bytes among them
	}
	var parts []*part
	at := map[string]*part{}
	for i := range batch {
		q := &batch[i]
		p := at[q.ns]
		if p == nil {
			p = &part{ns: q.ns}
			at[q.ns] = p
			parts = append(parts, p)
		}
		p.events = append(p.events, q)
		if q.opening {
			p.opened++
		}
	}
	ttl := j.opt.MaxAge.Milliseconds()
	cmds := make(rueidis.Commands, 0, len(parts)*24)
	for _, p := range parts {
		b := j.base(p.ns)
		o, st, m, d, zo, zs := b+"o", b+"s", b+"m", b+"d", b+"zo", b+"zs"
		cmds = append(cmds, j.c.B().Multi().Build())
		first := len(cmds) // the first command EXEC answers
		// Its openings, then its later events, each in entries of at most
		// chunkBytes, with one item per entry in the list beside the stream.
		var items [2][]string
		var bytes int64
		for k, key := range [2]string{o, st} {
			opening := k == 0
			var plain []byte // the entry's events, see appendChunkEvent
			var size, n int64
			item := make([]byte, 0, 64)
			end := func() {
				if n == 0 {
					return
				}
				z := rueidis.BinaryString(s2.Encode(nil, plain))
				cmds = append(cmds, j.c.B().Xadd().Key(key).Id("*").FieldValue().FieldValue(chunkField, z).Build())
				if opening {
					item = strconv.AppendInt(append(item, ' '), n, 10)
				}
				items[k] = append(items[k], strconv.FormatInt(size, 10)+string(item))
				bytes += size
				plain, size, n, item = plain[:0], 0, 0, item[:0]
			}
			for _, q := range p.events {
				if q.opening != opening {
					continue
				}
				if size > 0 && size+q.size() > j.chunkBytes {
					end()
				}
				plain = appendChunkEvent(plain, q.id, q.value)
				size, n = size+q.size(), n+1
				if !opening { // the later events' ids, for their counts of dropped events
					item = append(item, ' ', "01"[btoi(q.enquiry)])
					item = append(item, q.id...)
				}
			}
			end()
		}
		for k, key := range [2]string{zo, zs} {
			if len(items[k]) > 0 {
				cmds = append(cmds, j.c.B().Rpush().Key(key).Element(items[k]...).Build())
			}
		}
		p.bytesAt = len(cmds) - first
		cmds = append(cmds,
			j.c.B().Hincrby().Key(m).Field("b").Increment(bytes).Build(),
			j.c.B().Hincrby().Key(m).Field("no").Increment(int64(p.opened)).Build(),
			j.c.B().Hincrby().Key(m).Field("v").Increment(1).Build())
		for _, k := range [...]string{o, st, m, d, zo, zs} {
			cmds = append(cmds, j.c.B().Pexpire().Key(k).Milliseconds(ttl).Build())
		}
		cmds = append(cmds, j.c.B().Publish().Channel(j.channel()).Message(p.ns).Build())
		p.replies = len(cmds) - first
		cmds = append(cmds, j.c.B().Exec().Build())
	}
	ctx, cancel := context.WithTimeout(context.Background(), j.opt.Timeout)
	defer cancel()
	var failed, written int
	var firstErr error
	var trims []rueidis.LuaExec
	sizes := make([]int, len(parts))
	for i, p := range parts {
		sizes[i] = p.replies + 2 // with MULTI and EXEC
	}
	res := doMultiBySlot(ctx, j.c, cmds, sizes)
	next := 0
	for _, p := range parts {
		next += p.replies + 2 // with MULTI and EXEC
		// EXEC answers the namespace's commands, or fails them all.
		vs, err := res[next-1].ToArray()
		if err == nil && len(vs) != p.replies {
			err = fmt.Errorf("EXEC answered %d replies for %d commands", len(vs), p.replies)
		}
		if err == nil {
			for _, v := range vs {
				if err = v.Error(); err != nil {
					break
				}
			}
		}
		if err != nil {
			failed += len(p.events)
			firstErr = cmpErr(firstErr, err)
			continue
		}
		written += len(p.events)
		bytes, _ := vs[p.bytesAt].AsInt64()
		opened, _ := vs[p.bytesAt+1].AsInt64()
		if bytes > j.opt.MaxBytesPerNamespace || opened > j.trimAt {
			b := j.base(p.ns)
			trims = append(trims, rueidis.LuaExec{Keys: []string{b + "o", b + "s", b + "m", b + "d", b + "zo", b + "zs"}, Args: []string{
				strconv.FormatInt(j.maxOpen, 10), strconv.FormatInt(j.opt.MaxBytesPerNamespace, 10),
				strconv.FormatInt(j.opt.MaxBytesPerNamespace-j.opt.MaxBytesPerNamespace/8, 10), j.channel(), p.ns}})
		}
	}
	if len(trims) > 0 {
		for _, r := range trimScript.execMulti(ctx, j.c, trims...) {
			n, err := r.AsInt64()
			if err != nil {
				// The next batch of the namespace tries again.
				j.log.Warn("console journal: trim failed", slog.Any("err", Classify("journal trim", err)))
				continue
			}
			j.evicted.Add(uint64(max(n, 0)))
		}
	}
	var size int64
	for i := range batch {
		size += batch[i].size()
	}
	j.queuedBytes.Add(-size)
	j.recorded.Add(uint64(written))
	if failed > 0 {
		j.drop(failed, Classify("journal record", firstErr))
	}
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
