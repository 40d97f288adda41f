package owner_test

import (
	"fmt"

	"stortest.dev/internal/owner"
)

// A name made with this process's tag is alive; a kept file's name carries
// no tag.
func ExampleParse() {
	name := "stortest-scratch-" + owner.Tag() + "-2712847316.img"
	tag, ok := owner.Parse(name)
	fmt.Println(ok, owner.Alive(tag))
	_, ok = owner.Parse("stortest-scratch-2712847316.img")
	fmt.Println(ok)
	// Output:
	// true true
	// false
}
