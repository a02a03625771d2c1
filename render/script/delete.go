package script

import (
	"github.com/krmplan/krmplan/tenancy"
)

// deleteURL is the API path of the object of kind k named name (a
// validated name), as kubectl delete --raw takes it: kubectl delete has
// no uid precondition flag, so the scripts send the DELETE's options (the
// uid precondition, the dry run) in its body through --raw.
func deleteURL(k tenancy.Kind, name word) word {
	return word("/apis/" + tenancy.APIVersion + "/" + k.Info().Resource + "/" + string(name))
}
