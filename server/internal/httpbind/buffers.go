package httpbind

import "sync"

// A unary answer is encoded into a pooled buffer rather than a new one
// each time (a kilobyte per answer, the biggest allocation of a send): the
// buffer goes back to the pool once WriteJSON has returned, as a response
// writer keeps no slice it was given (io.Writer's rule; the wire capture
// and the transport faults copy what they keep).

// pooledBuffer is a buffer from resultBuffers.
type pooledBuffer struct{ b []byte }

var resultBuffers = sync.Pool{New: func() any { return &pooledBuffer{b: make([]byte, 0, rpcBufferSize)} }}

// maxPooledBuffer bounds the buffers kept for reuse: the rare large answer
// (a task with a long history) does not pin its buffer in the pool.
const maxPooledBuffer = 64 << 10

// resultBuffer returns an empty buffer to encode an answer into (its b).
func resultBuffer() *pooledBuffer { return resultBuffers.Get().(*pooledBuffer) }

// release gives the buffer back once nothing uses it; used is what it was
// grown to (nil: as it was).
func (p *pooledBuffer) release(used []byte) {
	if used != nil {
		p.b = used
	}
	if cap(p.b) > maxPooledBuffer {
		return
	}
	p.b = p.b[:0]
	resultBuffers.Put(p)
}
