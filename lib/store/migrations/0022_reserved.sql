-- 0022: reserved for another branch of this session (issue 32's tokens;
-- migrations must be numbered without gaps, and 0023 is this branch's).
-- The lead deletes this file at merge when the real 0022 lands.
SELECT 1;
