-- 0016: reserved for a migration of another branch of issue 29's
-- parallel work; this placeholder changes nothing and is dropped when
-- that branch's 0016 is merged (two files of one number fail to open).
SELECT 1;
