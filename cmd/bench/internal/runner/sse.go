package runner

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"
)

// sseEvent is one Server-Sent Event: its type ("message" when the stream
// names none) and its data lines joined by "\n".
type sseEvent struct {
	Event string
	Data  string
}

// sseReader reads events from a text/event-stream body as a browser's
// EventSource does, to the extent the bench needs: event, data and retry
// fields; comments (": ping") and id are skipped. Lines may end in "\n" or
// "\r\n" (the lone "\r" the format also allows is not used by the server).
type sseReader struct {
	r *bufio.Reader
	// Retry is the reconnection delay the stream last asked for, 0 if none.
	Retry time.Duration
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 4096)} }

// Next returns the next event. At the end of the stream it returns io.EOF
// (an event not ended by a blank line is dropped, as EventSource drops it),
// or the read error.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return sseEvent{}, err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if data == nil { // a blank line with no data dispatches nothing
				ev = sseEvent{}
				continue
			}
			ev.Data = strings.Join(data, "\n")
			if ev.Event == "" {
				ev.Event = "message"
			}
			return ev, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Event = value
		case "data":
			data = append(data, value)
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil && ms >= 0 {
				s.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}
