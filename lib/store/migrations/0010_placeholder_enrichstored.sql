-- 0010: placeholder of branch enrichstored, which was given migration
-- 0011 while 0010 belongs to another branch. Migrations must be numbered
-- without gaps, so this no-op keeps the branch runnable alone; the lead
-- drops it at merge (the real 0010 takes its place).
SELECT 1;
