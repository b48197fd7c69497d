-- The console's actors page reads actor_query (include "work" and "keys") like every other surface;
-- its own function, created by 0004_console.sql, goes.
drop function if exists bullpen.console_actors();
