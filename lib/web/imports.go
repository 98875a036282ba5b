package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"

	"github.com/linkledger/linkledger/lib/ledger"
)

// keptImports is how many import results the server keeps for their
// result pages; older ones are forgotten (the items themselves are saved).
const keptImports = 16

// importResults keeps the last import results in memory, each under a
// random id, so the import form can redirect to a result page
// (Post/Redirect/Get): a reload shows the result again instead of posting
// the file again. The zero value is ready.
type importResults struct {
	mu    sync.Mutex
	order []string
	byID  map[string]*ledger.ImportResult
}

// keep stores res and returns its id.
func (k *importResults) keep(res *ledger.ImportResult) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byID == nil {
		k.byID = map[string]*ledger.ImportResult{}
	}
	k.byID[id] = res
	k.order = append(k.order, id)
	if len(k.order) > keptImports {
		delete(k.byID, k.order[0])
		k.order = k.order[1:]
	}
	return id
}

func (k *importResults) get(id string) *ledger.ImportResult {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.byID[id]
}

// importResult is the page an import redirects to: the inbox with the
// result of that import.
func (s *Server) importResult(w http.ResponseWriter, r *http.Request) {
	res := s.imports.get(r.PathValue("id"))
	if res == nil {
		s.plainError(w, http.StatusNotFound, "this import result is no longer kept (the server keeps the last few, until it restarts); the imported links are in the inbox")
		return
	}
	d, err := s.homeData(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.ImportResult = res
	s.render(w, r, http.StatusOK, "home", view{Title: "Inbox", Nav: "home", Data: d})
}
