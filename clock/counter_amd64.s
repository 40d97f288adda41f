#include "textflag.h"

// The counter reads return EDX:EAX combined into one uint64.

// func readCounter() uint64
//
// Reads the TSC ordered after every earlier instruction, so a timestamp cannot be
// taken before the work that precedes it in program order. RDTSCP gives that
// ordering by definition on both Intel and AMD; LFENCE;RDTSC needs LFENCE to be
// dispatch-serialising, which older AMD parts only are when the kernel sets an
// MSR a guest cannot see. Both cost the same (about 21 ns on the reference VM),
// so RDTSCP is used whenever CPUID reports it (hasRDTSCP).
TEXT ·readCounter(SB), NOSPLIT, $0-8
	CMPB	·hasRDTSCP(SB), $0
	JEQ	fenced
	RDTSCP	// also writes IA32_TSC_AUX into CX, which is discarded
	JMP	done
fenced:
	LFENCE
	RDTSC
done:
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func rdtscLfence() uint64
TEXT ·rdtscLfence(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func rdtscp() uint64
TEXT ·rdtscp(SB), NOSPLIT, $0-8
	RDTSCP
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func readCounterRaw() uint64
//
// RDTSC without any ordering: the CPU may execute it before or after its
// neighbours. A benchmark baseline only.
TEXT ·readCounterRaw(SB), NOSPLIT, $0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL	leaf+0(FP), AX
	MOVL	subleaf+4(FP), CX
	CPUID
	MOVL	AX, eax+8(FP)
	MOVL	BX, ebx+12(FP)
	MOVL	CX, ecx+16(FP)
	MOVL	DX, edx+20(FP)
	RET
