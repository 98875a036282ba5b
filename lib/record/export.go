package record

// ExportItemKey is the key of an export record (linkledger export) that
// holds the item's row as stored: what a restore writes back
// (docs/import-export.md). Its presence marks an export record.
const ExportItemKey = "ledger_item"

// IsExport reports whether rec is an export record (a restore takes it).
func (r *Record) IsExport() bool {
	_, ok := r.Extra[ExportItemKey]
	return ok
}
