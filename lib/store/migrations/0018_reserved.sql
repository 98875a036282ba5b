-- 0018: reserved for another branch of this session (migrations must be
-- numbered without gaps, and 0019 is this branch's). The lead deletes this
-- file at merge when the real 0018 lands, or renumbers 0019.
SELECT 1;
