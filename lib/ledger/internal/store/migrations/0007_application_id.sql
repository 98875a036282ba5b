-- 0007: mark the file as a linkledger database. PRAGMA application_id is
-- a 32-bit number in the SQLite header that says which program's file
-- it is (`file` and `sqlite3 .dbinfo` show it); linkledger's is
-- 0x4C4C6467, the ASCII of "LLdg". Open refuses a SQLite file with
-- another application_id, or with none and tables that are not
-- linkledger's, instead of migrating it. New databases get the id with
-- their first migration (store.migrate); this sets it on databases
-- created before it existed.
PRAGMA application_id = 1280074855;
