package a2apb_test

import (
	"bytes"
	"testing"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
)

func TestAppendMessageIsNextMessagesInverse(t *testing.T) {
	t.Parallel()
	b := a2apb.AppendMessage(a2apb.AppendMessage(nil, []byte("first")), nil)
	compressed, msg, rest, ok := a2apb.NextMessage(b)
	if !ok || compressed || string(msg) != "first" {
		t.Fatalf("first message: %v %v %q", ok, compressed, msg)
	}
	if _, msg, rest, ok = a2apb.NextMessage(rest); !ok || len(msg) != 0 || len(rest) != 0 {
		t.Fatalf("second (empty) message: %v %q %q", ok, msg, rest)
	}
	if want := []byte{0, 0, 0, 0, 2, 'h', 'i'}; !bytes.Equal(a2apb.AppendMessage(nil, []byte("hi")), want) {
		t.Fatalf("framing: %v", a2apb.AppendMessage(nil, []byte("hi")))
	}
}

func TestMethodAt(t *testing.T) {
	t.Parallel()
	if md := a2apb.MethodAt(a2apb.ServicePath + "SendMessage"); md == nil || md != a2apb.Method("SendMessage") {
		t.Errorf("v1.0 SendMessage: %v", md)
	}
	if md := a2apb.MethodAt(a2apb03.ServicePath + "TaskSubscription"); md == nil || md != a2apb03.Method("TaskSubscription") {
		t.Errorf("v0.3 TaskSubscription: %v", md)
	}
	for _, p := range []string{"", "/", a2apb.ServicePath, a2apb.ServicePath + "NoSuch", a2apb03.ServicePath + "SubscribeToTask", "/other.Service/SendMessage", "/agents/a" + a2apb.ServicePath + "GetTask"} {
		if md := a2apb.MethodAt(p); md != nil {
			t.Errorf("MethodAt(%q) = %v, want nil", p, md.FullName())
		}
	}
}
