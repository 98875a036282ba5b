-- 0005: a placeholder on the items branch only, so that 0006_archive.sql
-- applies in order (migrations must be numbered without gaps). Another
-- branch owns the real 0005; when merging, drop this file, or, if no 0005
-- exists, rename 0006_archive.sql to 0005_archive.sql. It changes nothing.
SELECT 1;
