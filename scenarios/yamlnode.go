package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks the yaml.Node tree of one file and collects every problem
// with its line instead of stopping at the first.
type decoder struct {
	file     string
	problems []Problem
}

func (d *decoder) problemf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.problems = append(d.problems, Problem{File: d.file, Line: line, Reason: fmt.Sprintf(format, args...)})
}

// mapping is a decoded YAML mapping: value and key nodes by key name.
type mapping struct {
	node   *yaml.Node
	values map[string]*yaml.Node
	keys   map[string]*yaml.Node
}

// has reports whether the mapping sets key.
func (m mapping) has(key string) bool {
	_, ok := m.values[key]
	return ok
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// describe names the kind of a node for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		default:
			return strconv.Quote(n.Value)
		}
	default:
		return "an unsupported YAML node"
	}
}

// mapping decodes n as a mapping whose keys must be among allowed. what
// names the mapping in messages. It reports unknown and duplicate keys.
func (d *decoder) mapping(n *yaml.Node, what string, allowed []string) (mapping, bool) {
	n = resolve(n)
	m := mapping{node: n, values: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	if n.Kind != yaml.MappingNode {
		d.problemf(n, "%s must be a mapping, got %s", what, describe(n))
		return m, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.problemf(k, "keys of %s must be names, got %s", what, describe(k))
			continue
		}
		name := k.Value
		if k.ShortTag() == "!!merge" {
			d.problemf(k, "merge keys (<<) are not supported in %s", what)
			continue
		}
		if !slices.Contains(allowed, name) {
			d.problemf(k, "unknown key %q in %s%s", name, what, suggest(name, allowed))
			continue
		}
		if first, dup := m.keys[name]; dup {
			d.problemf(k, "duplicate key %q in %s; first set at line %d", name, what, first.Line)
			continue
		}
		m.values[name] = v
		m.keys[name] = k
	}
	return m, true
}

// suggest returns " (did you mean x?)" when a known key is close to name.
func suggest(name string, allowed []string) string {
	best, bestDist := "", 3
	for _, a := range allowed {
		if strings.EqualFold(a, name) {
			return fmt.Sprintf(" (did you mean %s?)", a)
		}
		if dist := EditDistance(strings.ToLower(a), strings.ToLower(name)); dist < bestDist {
			best, bestDist = a, dist
		}
	}
	if best == "" {
		return fmt.Sprintf(" (known keys: %s)", strings.Join(allowed, ", "))
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// EditDistance is the Levenshtein distance of two short strings (longer
// than 64 bytes, the longer length): what a "did you mean" measures, for
// the keys of a scenario file as for the flags of the command line.
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// required reports a missing key and returns false when m lacks it.
func (d *decoder) required(m mapping, key, what string) bool {
	if m.has(key) {
		return true
	}
	d.problemf(m.node, "%s: missing required key %q", what, key)
	return false
}

// str decodes the value of key as a string. A value YAML reads as a number
// or a boolean is refused with a hint to quote it.
func (d *decoder) str(m mapping, key string) (string, bool) {
	n, ok := m.values[key]
	if !ok {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			d.problemf(n, "%s must be a string: quote it (%s: %q)", key, key, n.Value)
		} else {
			d.problemf(n, "%s must be a string, got %s", key, describe(n))
		}
		return "", false
	}
	return n.Value, true
}

// boolean decodes the value of key as a YAML boolean (true or false).
func (d *decoder) boolean(m mapping, key string) (bool, bool) {
	n, ok := m.values[key]
	if !ok {
		return false, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.problemf(n, "%s must be true or false, got %s", key, describe(n))
		return false, false
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		d.problemf(n, "%s must be true or false: %v", key, err)
		return false, false
	}
	return v, true
}

// oneOf decodes the value of key as a string from a fixed list.
func (d *decoder) oneOf(m mapping, key string, allowed []string) (string, bool) {
	s, ok := d.str(m, key)
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s) {
		d.problemf(m.values[key], "%s %q is not one of %s", key, s, strings.Join(allowed, ", "))
		return "", false
	}
	return s, true
}

// pattern decodes the value of key as a string matching re; rule describes
// re in the error message.
func (d *decoder) pattern(m mapping, key string, re *regexp.Regexp, rule string) (string, bool) {
	s, ok := d.str(m, key)
	if !ok {
		return "", false
	}
	if !re.MatchString(s) {
		d.problemf(m.values[key], "%s %q must be %s", key, s, rule)
		return "", false
	}
	return s, true
}

// integer decodes the value of key as a decimal whole number in [lo, hi].
func (d *decoder) integer(m mapping, key string, lo, hi int) (int, bool) {
	n, ok := m.values[key]
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || err != nil {
		d.problemf(n, "%s must be a whole number, got %s", key, describe(n))
		return 0, false
	}
	if v < lo || v > hi {
		d.problemf(n, "%s %d is out of range %d-%d", key, v, lo, hi)
		return 0, false
	}
	return v, true
}

// duration decodes the value of key as a Go duration ("2s", "1m30s") in
// [0, hi].
func (d *decoder) duration(m mapping, key string, hi time.Duration) (time.Duration, bool) {
	n, ok := m.values[key]
	if !ok {
		return 0, false
	}
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		d.problemf(n, "%s must be a duration with a unit, such as %ss", key, n.Value)
		return 0, false
	}
	s, ok := d.str(m, key)
	if !ok {
		return 0, false
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.problemf(n, "%s %q is not a duration such as 2s or 1m30s", key, s)
		return 0, false
	}
	if v < 0 || v > hi {
		d.problemf(n, "%s %s is out of range 0s-%s", key, s, hi)
		return 0, false
	}
	return v, true
}
