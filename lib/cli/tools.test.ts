import { describe, expect, it } from 'vitest';
import { getTool } from '../core/registry';
import { findTool, parseToolArgs, toolHelp } from './tools';

describe('findTool', () => {
  it('maps noun-verb words to tool names', () => {
    expect(findTool(['task', 'claim', '--label', 'api'])).toMatchObject({ tool: { name: 'task_claim' }, used: 2 });
    expect(findTool(['whoami', '--json'])).toMatchObject({ tool: { name: 'whoami' }, used: 1 });
    expect(findTool(['task', 'create-many'])).toMatchObject({ tool: { name: 'task_create_many' }, used: 2 });
    expect(findTool(['register', 'actor'])).toMatchObject({ tool: { name: 'register_actor' } });
    expect(findTool(['task', 'explode'])).toBeNull();
    expect(findTool(['notification', 'mark-read', '--all'])).toMatchObject({ tool: { name: 'notification_mark_read' }, used: 2 });
    expect(findTool(['handoff', 'respond'])).toMatchObject({ tool: { name: 'handoff_respond' } });
    expect(findTool(['inbox', '--wait-seconds', '30'])).toMatchObject({ tool: { name: 'inbox' }, used: 1 });
    expect(findTool(['debate', 'reply'])).toMatchObject({ tool: { name: 'debate_reply' }, used: 2 });
    expect(findTool(['council', 'ask'])).toMatchObject({ tool: { name: 'council_ask' }, used: 2 });
    expect(findTool(['council', 'get'])).toMatchObject({ tool: { name: 'council_get' }, used: 2 });
    expect(findTool(['workflow', 'start'])).toMatchObject({ tool: { name: 'workflow_start' }, used: 2 });
  });

  it('takes a workflow instance, or the workflow, as the positional argument', () => {
    const id = '11111111-2222-4333-8444-555555555555';
    expect(parseToolArgs(getTool('workflow_pause')!, [id, '--note', 'wait']).input).toEqual({ instance_id: id, note: 'wait' });
    expect(parseToolArgs(getTool('workflow_start')!, ['Release', '--project-id', 'REL', '--inputs', '{"version":"1.2"}']).input)
      .toEqual({ workflow_id: 'Release', project_id: 'REL', inputs: { version: '1.2' } });
  });

  it('takes a decision or council id as the positional argument', () => {
    const id = '11111111-2222-4333-8444-555555555555';
    expect(parseToolArgs(getTool('debate_reply')!, [id, '--position', 'Postgres queue', '--argument', 'one database']).input)
      .toEqual({ decision_id: id, position: 'Postgres queue', argument: 'one database' });
    expect(parseToolArgs(getTool('council_get')!, [id, '--wait-seconds', '30']).input).toEqual({ council_id: id, wait_seconds: 30 });
    expect(parseToolArgs(getTool('council_ask')!, ['--question', 'Postgres?', '--context-ids', 'JOB-1', '--record-decision', 'true']).input)
      .toEqual({ question: 'Postgres?', context_ids: ['JOB-1'], record_decision: true });
  });
});

describe('the webhook twins', () => {
  it('bullpen webhook add URL --events a,b: the URL is positional and a comma list becomes the array', () => {
    expect(findTool(['webhook', 'add'])).toMatchObject({ tool: { name: 'webhook_add' }, used: 2 });
    expect(parseToolArgs(getTool('webhook_add')!, ['https://agent.example.com/hook', '--events', 'task.done,handoff.created']).input)
      .toEqual({ url: 'https://agent.example.com/hook', events: ['task.done', 'handoff.created'] });
    const id = '11111111-2222-4333-8444-555555555555';
    expect(parseToolArgs(getTool('webhook_remove')!, [id]).input).toEqual({ webhook_id: id });
    // a list whose values may hold commas is not split
    expect(parseToolArgs(getTool('council_ask')!, ['--question', 'q', '--context-ids', 'JOB-1,JOB-2']).input.context_ids).toEqual(['JOB-1,JOB-2']);
  });
});

describe('parseToolArgs', () => {
  it('reads kebab or snake flags, JSON values, repeated array flags and a positional id', () => {
    const { input, flags } = parseToolArgs(getTool('task_create')!, [
      '--project-id', 'PAY', '--title', '42', '--priority', '1', '--labels', 'api', '--labels', 'db', '--acceptance_criteria', '["works"]', '--json',
    ]);
    expect(input).toEqual({ project_id: 'PAY', title: '42', priority: 1, labels: ['api', 'db'], acceptance_criteria: ['works'] });
    expect(flags.has('json')).toBe(true);
    expect(parseToolArgs(getTool('task_get')!, ['PAY-3']).input).toEqual({ task_id: 'PAY-3' });
    expect(parseToolArgs(getTool('task_update')!, ['PAY-3', '--patch', '{"status":"done"}']).input).toEqual({ task_id: 'PAY-3', patch: { status: 'done' } });
    expect(parseToolArgs(getTool('task_link')!, ['PAY-3', '--clear-parent']).input).toEqual({ task_id: 'PAY-3', clear_parent: true });
  });
  it('takes a handoff id as the positional argument, and arrays and numbers for the inbox', () => {
    const id = '11111111-2222-4333-8444-555555555555';
    expect(parseToolArgs(getTool('handoff_claim')!, [id]).input).toEqual({ handoff_id: id });
    expect(parseToolArgs(getTool('handoff_respond')!, [id, '--response', '{"chosen_option":"approve"}']).input).toEqual({
      handoff_id: id,
      response: { chosen_option: 'approve' },
    });
    expect(parseToolArgs(getTool('inbox')!, ['--ack', id, '--wait-seconds', '30', '--kinds', 'handoff']).input).toEqual({
      ack: [id],
      wait_seconds: 30,
      kinds: ['handoff'],
    });
    expect(parseToolArgs(getTool('handoff_create')!, ['--to-actor-ids', 'me', '--title', 'Ship?', '--kind', 'approval']).input).toEqual({
      to_actor_ids: ['me'],
      title: 'Ship?',
      kind: 'approval',
    });
  });
  it('refuses a second positional and a flag without a value', () => {
    expect(() => parseToolArgs(getTool('task_get')!, ['PAY-3', 'PAY-4'])).toThrow(/unexpected argument/);
    expect(() => parseToolArgs(getTool('task_get')!, ['--task-id'])).toThrow(/needs a value/);
  });
});

describe('toolHelp', () => {
  it('lists every flag with its type and the required ones', () => {
    const help = toolHelp(getTool('task_claim')!);
    expect(help).toContain('bullpen task claim [TASK_ID]');
    expect(help).toContain('--lease-seconds');
    expect(help).toContain('BULLPEN_API_KEY');
    expect(toolHelp(getTool('task_create')!)).toMatch(/--title string \(required\)/);
    expect(toolHelp(getTool('notification_mark_read')!)).toContain('bullpen notification mark-read [--flags]');
    expect(toolHelp(getTool('handoff_claim')!)).toContain('bullpen handoff claim [HANDOFF_ID]');
    expect(toolHelp(getTool('inbox')!)).toContain('--wait-seconds number');
  });
});

describe('the graph tools have twins', () => {
  it('link add, link remove, find related, guidelines get, knowledge retract', () => {
    expect(findTool(['link', 'add'])).toMatchObject({ tool: { name: 'link_add' }, used: 2 });
    expect(findTool(['link', 'remove'])).toMatchObject({ tool: { name: 'link_remove' } });
    expect(findTool(['find', 'related'])).toMatchObject({ tool: { name: 'find_related' } });
    expect(findTool(['guidelines', 'get'])).toMatchObject({ tool: { name: 'guidelines_get' } });
    expect(findTool(['knowledge', 'retract'])).toMatchObject({ tool: { name: 'knowledge_retract' } });
    const { input } = parseToolArgs(getTool('link_add')!, ['--from', '{"type":"task","id":"PAY-1"}', '--to', '{"type":"note","id":"x"}', '--relation', 'explains', '--strength', '0.5']);
    expect(input).toEqual({ from: { type: 'task', id: 'PAY-1' }, to: { type: 'note', id: 'x' }, relation: 'explains', strength: 0.5 });
    const related = parseToolArgs(getTool('find_related')!, ['--type', 'task', '--id', 'PAY-1', '--depth', '3', '--relations', 'explains']).input;
    expect(related).toEqual({ type: 'task', id: 'PAY-1', depth: 3, relations: ['explains'] });
  });
});
