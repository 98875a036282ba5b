-- 0020: reserved for another branch of this session (migrations must be
-- numbered without gaps, and 0021 is this branch's). The lead deletes this
-- file at merge when the real 0020 lands.
SELECT 1;
