-- 0010: what enrichment leaves on the item besides the artifact's texts.
--
-- artifacts.detail_json keeps what ll-enrich wrote beyond summary and
-- key_claims: the claims with where they came from ({claims: [{text,
-- chunk_index, confidence, unsupported}]}) and how the artifact was made
-- (method, model, endpoint_host, tokens, summary_by, tags). linkledger
-- show reads it back. NULL for artifacts stored before (their claims are
-- in the audit log's created event) and for those saved with ll-save.
--
-- items.enrich_error_json is the last enrichment failure (ll-enrich's
-- enrich.error: stage, code, message, retryable, http_status) of an item
-- that stays parsed; NULL when none, cleared by the next stored
-- enrichment. Each failure is also an enrich_failed event in the history.
ALTER TABLE artifacts ADD COLUMN detail_json TEXT;
ALTER TABLE items ADD COLUMN enrich_error_json TEXT;
