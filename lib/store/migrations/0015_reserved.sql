-- 0015: reserved. Another branch of issue 27 adds its own 0015; this
-- placeholder only keeps the numbers of this branch without a gap (the
-- store refuses one) and is dropped when the branches are merged.
SELECT 1;
