package libraries

import (
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// A shelf's entity that cannot be read is an error, which the answer
// counts and says, not an entity silently missing; an episode shelf's
// entry without an episode is no entity, and no error.
func TestShelfEntity(t *testing.T) {
	for _, kind := range []string{"book", "podcast", "episode", "series", "authors", "narrators"} {
		if _, err := shelfEntity(kind, absdata.RawValue(`{"id":7,"name":"x"}`)); err == nil {
			t.Errorf("%s shelf: an entity whose id is a number was read", kind)
		}
		e, err := shelfEntity(kind, absdata.RawValue(`{"id":"a1","name":"x"}`))
		if err != nil {
			t.Errorf("%s shelf: %v", kind, err)
		}
		if (e == nil) != (kind == "episode") {
			t.Errorf("%s shelf: entity %#v", kind, e)
		}
	}
}
