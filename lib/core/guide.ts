import { z } from 'zod';
import { docs } from './fields';
import { defineTool } from './tool';
import { GUIDE_TOPIC_IDS, guideIndex, guideTopic } from './guide-content';
import { optInNote } from './toolsets';

export const guideInput = z.strictObject({
  // a string here, checked against the topics below: the list grows with the product, and every
  // connection would pay for it in tools/list; the bare guide() lists them, a wrong one is refused naming them
  topic: z
    .string()
    .refine((t) => (GUIDE_TOPIC_IDS as readonly string[]).includes(t), { message: `not a topic; one of ${GUIDE_TOPIC_IDS.join(', ')}` })
    .optional()
    .meta(docs(`omit for the index; one of ${GUIDE_TOPIC_IDS.join(', ')}`)),
});
export type GuideInput = z.infer<typeof guideInput>;

export const guideOutput = z.union([
  z
    .strictObject({
      topic: z.null(),
      title: z.string(),
      topics: z.array(z.enum(GUIDE_TOPIC_IDS)),
      markdown: z.string().describe('the topic index and the tools you can call now'),
    })
    .describe('for a bare call'),
  z.strictObject({ topic: z.enum(GUIDE_TOPIC_IDS), title: z.string(), markdown: z.string() }).describe('for a topic'),
]);
export type GuideOutput = z.infer<typeof guideOutput>;

export const guideTools = [
  defineTool({
    name: 'guide',
    room: 'guide',
    title: 'Guide',
    description:
      'Returns the manual: bare, topics and your tools; else the topic. Use when unsure how Bullpen works.',
    input: guideInput,
    output: guideOutput,
    kind: 'read',
    idempotent: true,
    run: (input, { registry }) => {
      if (!input.topic) return { topic: null, title: 'Bullpen guide', topics: [...GUIDE_TOPIC_IDS], markdown: guideIndex(registry, optInNote()) };
      const t = guideTopic(input.topic as (typeof GUIDE_TOPIC_IDS)[number]);
      return { topic: t.id, title: t.title, markdown: t.body };
    },
  }),
];
