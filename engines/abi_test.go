package engines

import (
	"testing"
	"unsafe"
)

// TestABILayout pins the kernel structures defined in this package to the
// sizes and offsets of linux/io_uring.h and linux/aio_abi.h.
func TestABILayout(t *testing.T) {
	tests := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(io_uring_sqe)", unsafe.Sizeof(uringSQE{}), 64},
		{"io_uring_sqe.off", unsafe.Offsetof(uringSQE{}.Off), 8},
		{"io_uring_sqe.addr", unsafe.Offsetof(uringSQE{}.Addr), 16},
		{"io_uring_sqe.len", unsafe.Offsetof(uringSQE{}.Len), 24},
		{"io_uring_sqe.rw_flags", unsafe.Offsetof(uringSQE{}.OpFlags), 28},
		{"io_uring_sqe.user_data", unsafe.Offsetof(uringSQE{}.UserData), 32},
		{"io_uring_sqe.buf_index", unsafe.Offsetof(uringSQE{}.BufIndex), 40},
		{"io_uring_sqe.addr3", unsafe.Offsetof(uringSQE{}.Addr3), 48},
		{"sizeof(io_uring_cqe)", unsafe.Sizeof(uringCQE{}), 16},
		{"io_uring_cqe.res", unsafe.Offsetof(uringCQE{}.Res), 8},
		{"sizeof(io_uring_params)", unsafe.Sizeof(uringParams{}), 120},
		{"io_uring_params.features", unsafe.Offsetof(uringParams{}.Features), 20},
		{"io_uring_params.sq_off", unsafe.Offsetof(uringParams{}.SQOff), 40},
		{"io_uring_params.cq_off", unsafe.Offsetof(uringParams{}.CQOff), 80},
		{"sizeof(io_sqring_offsets)", unsafe.Sizeof(sqringOffsets{}), 40},
		{"sizeof(io_cqring_offsets)", unsafe.Sizeof(cqringOffsets{}), 40},
		{"sizeof(io_uring_getevents_arg)", unsafe.Sizeof(uringGetEventsArg{}), 24},
		{"sizeof(iocb)", unsafe.Sizeof(iocb{}), 64},
		{"iocb.aio_lio_opcode", unsafe.Offsetof(iocb{}.Opcode), 16},
		{"iocb.aio_fildes", unsafe.Offsetof(iocb{}.Fildes), 20},
		{"iocb.aio_buf", unsafe.Offsetof(iocb{}.Buf), 24},
		{"iocb.aio_nbytes", unsafe.Offsetof(iocb{}.Nbytes), 32},
		{"iocb.aio_offset", unsafe.Offsetof(iocb{}.Offset), 40},
		{"iocb.aio_flags", unsafe.Offsetof(iocb{}.Flags), 56},
		{"sizeof(io_event)", unsafe.Sizeof(ioEvent{}), 32},
		{"io_event.res", unsafe.Offsetof(ioEvent{}.Res), 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
			}
		})
	}
}
