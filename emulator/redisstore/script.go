package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strings"

	"github.com/redis/rueidis"
)

// script is a Lua script sent by its SHA-1 (EVALSHA), and in full (EVAL)
// only to a Redis that answers NOSCRIPT: after its start, a SCRIPT FLUSH
// or a failover. It is never loaded with SCRIPT LOAD, which rueidis's own
// ExecMulti sends to every node before each batch.
type script struct {
	src string
	sha string
}

// newScript returns the script of Lua source src.
func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	return &script{src: src, sha: hex.EncodeToString(sum[:])}
}

// execMulti runs the script once for each of execs in one pipelined round
// trip, by SHA-1; those Redis does not know the script for are sent
// again in full, in a second round trip. The results are in the order of
// execs.
func (s *script) execMulti(ctx context.Context, c rueidis.Client, execs ...rueidis.LuaExec) []rueidis.RedisResult {
	cmds := make(rueidis.Commands, len(execs))
	for i, e := range execs {
		cmds[i] = c.B().Evalsha().Sha1(s.sha).Numkeys(int64(len(e.Keys))).Key(e.Keys...).Arg(e.Args...).Build()
	}
	res := c.DoMulti(ctx, cmds...)
	var again []int
	for i, r := range res {
		if noScript(r.Error()) {
			again = append(again, i)
		}
	}
	if len(again) == 0 {
		return res
	}
	cmds = cmds[:0]
	for _, i := range again {
		e := execs[i]
		cmds = append(cmds, c.B().Eval().Script(s.src).Numkeys(int64(len(e.Keys))).Key(e.Keys...).Arg(e.Args...).Build())
	}
	for k, r := range c.DoMulti(ctx, cmds...) {
		res[again[k]] = r
	}
	return res
}

// noScript tells Redis's answer to EVALSHA of a script it does not hold.
func noScript(err error) bool {
	re, ok := rueidis.IsRedisErr(err)
	return ok && strings.HasPrefix(re.Error(), "NOSCRIPT")
}
