package redisstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// recordFormat is the first byte of an event as the shared journal stores
// it; a record of another format is refused, never guessed at.
const recordFormat = 'E'

// maxRecordField bounds one field of a stored record when it is read
// back: far above what the journal writes (bodies are at most 8 KiB).
const maxRecordField = 1 << 20

// errRecord is a stored event that cannot be read.
var errRecord = errors.New("redisstore: bad stored journal event")

// appendRecord appends the stored form of e: the format byte, the time in
// Unix nanoseconds, then kind, status, detail, request and response, each
// a uvarint length and its bytes, then whether there is a challenge
// indication and, if so, its ACS URL, CReq, session data and window size.
func appendRecord(b []byte, e *journal.Event) []byte {
	b = append(b, recordFormat)
	b = binary.AppendVarint(b, e.Time.UnixNano())
	b = appendField(b, []byte(e.Kind))
	b = appendField(b, []byte(e.Status))
	b = appendField(b, []byte(e.Detail))
	b = appendField(b, e.Request)
	b = appendField(b, e.Response)
	c := e.Challenge
	if c == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = appendField(b, []byte(c.ACSURL))
	b = appendField(b, []byte(c.CReq))
	b = appendField(b, []byte(c.SessionData))
	return binary.AppendVarint(b, int64(c.WindowSize))
}

func appendField(b, f []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(f)))
	return append(b, f...)
}

// decodeRecord reads a stored event. It copies what it keeps, and refuses
// (errRecord) anything but exactly one well-formed record.
func decodeRecord(b []byte) (journal.Event, error) {
	d := recordDecoder{b: b}
	if len(b) == 0 || b[0] != recordFormat {
		return journal.Event{}, fmt.Errorf("%w: unknown format", errRecord)
	}
	d.b = d.b[1:]
	var e journal.Event
	e.Time = time.Unix(0, d.varint()).UTC()
	e.Kind = state.EventKind(d.field())
	e.Status = string(d.field())
	e.Detail = string(d.field())
	e.Request = d.bytes()
	e.Response = d.bytes()
	switch d.byte() {
	case 0:
	case 1:
		e.Challenge = &message.ChallengeIndication{
			ACSURL: string(d.field()), CReq: string(d.field()), SessionData: string(d.field()),
		}
		w := d.varint()
		if w < 0 || w > 1<<16 {
			d.err = true
		}
		e.Challenge.WindowSize = int(w)
	default:
		d.err = true
	}
	if d.err || len(d.b) != 0 {
		return journal.Event{}, fmt.Errorf("%w: truncated or malformed", errRecord)
	}
	return e, nil
}

// recordDecoder reads the parts of a record; a failure sets err and
// makes every later read return nothing.
type recordDecoder struct {
	b   []byte
	err bool
}

func (d *recordDecoder) byte() byte {
	if d.err || len(d.b) == 0 {
		d.err = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *recordDecoder) varint() int64 {
	if d.err {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

// field returns the next length-prefixed field, sharing d's memory.
func (d *recordDecoder) field() []byte {
	if d.err {
		return nil
	}
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > maxRecordField || n > uint64(len(d.b)-k) {
		d.err = true
		return nil
	}
	f := d.b[k : k+int(n)]
	d.b = d.b[k+int(n):]
	return f
}

// bytes returns a copy of the next field; nil for an empty one.
func (d *recordDecoder) bytes() []byte {
	f := d.field()
	if len(f) == 0 {
		return nil
	}
	return append([]byte(nil), f...)
}
