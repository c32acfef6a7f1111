package runner

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSSEReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stream string
		want   []sseEvent
		retry  time.Duration
	}{
		{"the order stream", "retry: 2000\n\nevent: order\ndata: {\"order_id\":\"a\",\"status\":\"pending\"}\n\n" +
			": ping\n\nevent: order\ndata: {\"order_id\":\"a\",\"status\":\"confirmed\"}\n\n",
			[]sseEvent{{"order", `{"order_id":"a","status":"pending"}`}, {"order", `{"order_id":"a","status":"confirmed"}`}},
			2 * time.Second},
		{"CRLF and no space", "event:order\r\ndata:x\r\n\r\n", []sseEvent{{"order", "x"}}, 0},
		{"unnamed, two data lines", "data: a\ndata: b\nid: 7\n\n", []sseEvent{{"message", "a\nb"}}, 0},
		{"an event cut off by the end is dropped", "event: order\ndata: x\n\nevent: order\ndata: y\n",
			[]sseEvent{{"order", "x"}}, 0},
		{"a blank line without data resets the type", "event: order\n\ndata: z\n\n", []sseEvent{{"message", "z"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newSSEReader(strings.NewReader(tt.stream))
			var got []sseEvent
			for {
				ev, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
			if r.Retry != tt.retry {
				t.Errorf("retry = %s, want %s", r.Retry, tt.retry)
			}
		})
	}
}
