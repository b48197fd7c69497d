import { getEmbedder } from './embedder';

/** Embeds one search query with the process-wide embedder (the contract's QueryEmbedder port). */
export async function embedQuery(text: string): Promise<{ vector: number[]; model: string }> {
  const embedder = getEmbedder();
  const [vector] = await embedder.embed([text]);
  return { vector, model: embedder.model };
}
