-- 0013: reserved for another branch of this session (migrations must be
-- numbered without gaps, and 0014 is this branch's). The lead deletes this
-- file at merge when the real 0013 lands, or renumbers 0014.
SELECT 1;
