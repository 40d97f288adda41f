package iogen_test

import (
	"fmt"

	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// Check tells what kind of corruption a bad block looks like.
func ExampleVerifier_Check() {
	v, err := iogen.NewVerifier(workload.VerifyCRC32C, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	block := make([]byte, 4096)
	v.Fill(block, 8192, 1) // written for offset 8192, generation 1
	fmt.Println(v.Check(block, 8192, 1))
	err = v.Check(block, 4096, 1) // but read back at offset 4096
	fmt.Println(err.(*iogen.VerifyError).Kind)
	// Output:
	// <nil>
	// misdirected write
}
