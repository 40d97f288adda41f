#include "textflag.h"

// func readCounter() uint64
//
// ISB makes every earlier instruction complete before the counter is read, so
// the read is not hoisted above the work it timestamps (Arm ARM D12.1.2).
TEXT ·readCounter(SB), NOSPLIT, $0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func readCounterRaw() uint64
//
// The counter without ISB: may be read out of order. A benchmark baseline only.
TEXT ·readCounterRaw(SB), NOSPLIT, $0-8
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET
