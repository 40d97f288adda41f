package engines

import (
	"fmt"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// Buffers are I/O buffers in anonymous mmap memory: page aligned (so good for
// O_DIRECT on any device with a logical block size up to the page size, and for
// io_uring registration), never moved and never scanned by the garbage
// collector. Every buffer starts on a page boundary.
//
// The kernel holds buffer addresses while I/O is in flight and while they are
// registered with an io_uring: keep the Buffers referenced and do not Free it
// until every engine using it is closed.
type Buffers struct {
	mem  []byte   // the whole mapping
	bufs [][]byte // n slices of size bytes each, page-aligned
	size int
}

// AllocBuffers maps n buffers of size bytes each. Each buffer's stride is size
// rounded up to the page size.
func AllocBuffers(n, size int) (*Buffers, error) {
	if n <= 0 || size <= 0 {
		return nil, fmt.Errorf("engines: %w: AllocBuffers(%d, %d): need n > 0 and size > 0", ErrConfig, n, size)
	}
	page := os.Getpagesize()
	stride := (size + page - 1) / page * page
	if stride > math.MaxInt/n {
		return nil, fmt.Errorf("engines: %w: AllocBuffers(%d, %d): too large", ErrConfig, n, size)
	}
	mem, err := unix.Mmap(-1, 0, n*stride, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("engines: map %d buffers of %d bytes: %w", n, size, err)
	}
	b := &Buffers{mem: mem, bufs: make([][]byte, n), size: size}
	for i := range b.bufs {
		b.bufs[i] = mem[i*stride : i*stride+size : i*stride+size]
	}
	return b, nil
}

// Len is the number of buffers.
func (b *Buffers) Len() int { return len(b.bufs) }

// Size is the length of each buffer in bytes.
func (b *Buffers) Size() int { return b.size }

// Buf returns buffer i. Its capacity equals its length, so an append cannot
// spill into the next buffer.
func (b *Buffers) Buf(i int) []byte { return b.bufs[i] }

// All returns every buffer, in order; pass it as Config.Buffers so that buffer
// i has BufIndex i. The slice is shared, not copied.
func (b *Buffers) All() [][]byte { return b.bufs }

// Free unmaps the buffers. Every slice handed out becomes invalid: touching one
// afterwards faults. Free is idempotent.
func (b *Buffers) Free() error {
	if b.mem == nil {
		return nil
	}
	err := unix.Munmap(b.mem)
	b.mem, b.bufs = nil, nil
	if err != nil {
		return fmt.Errorf("engines: unmap buffers: %w", err)
	}
	return nil
}
