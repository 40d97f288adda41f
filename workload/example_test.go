package workload_test

import (
	"fmt"

	"stortest.dev/workload"
)

// Check tells what kind of corruption a bad block looks like.
func ExampleVerifier_Check() {
	v, err := workload.NewVerifier(workload.VerifyCRC32C, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	block := make([]byte, 4096)
	v.Fill(block, 8192, 1) // written for offset 8192, generation 1
	fmt.Println(v.Check(block, 8192, 1))
	err = v.Check(block, 4096, 1) // but read back at offset 4096
	fmt.Println(err.(*workload.VerifyError).Kind)
	// Output:
	// <nil>
	// misdirected write
}
