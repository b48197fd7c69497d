import { handleMcp } from '@/lib/mcp/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// inbox and task_claim may hold a call for up to 60 s (wait_seconds); hosts that cap a request's
// duration must allow that and a margin
export const maxDuration = 90;

export const POST = handleMcp;
export const GET = handleMcp;
export const DELETE = handleMcp;
export const OPTIONS = handleMcp;
