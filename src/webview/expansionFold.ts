/**
 * Group-expansion steps folded into the tool card (`clientTools.chat.showExpansionSteps` off, the
 * default). When the backend expands a collapsed group or a skill, it reports a card for the group
 * itself and a `groupExpanded` event: bookkeeping of the agent, not something the user asked for.
 * The reducer keeps both (so the setting can show them again at any time) and marks them; the first
 * tool card of that group in the same run carries one muted line naming what was loaded instead.
 */
import { toFunctionName } from '../protocol/functionNames';
import type { ChatItem, ChatState, ToolItem } from './stateSchema';

const MAX_NAMED_TOOLS = 6;

type ExpansionItem = Extract<ChatItem, { kind: 'expansion' }>;

/** "Loaded the IDE group: OpenFile, GetSelection, …" (a skill: "Loaded the skill review (IDE group): …"). */
export function describeFold(group: string, tools: string[], skill?: string): string {
  const head = skill ? `Loaded the skill ${skill} (${group} group)` : `Loaded the ${group} group`;
  if (tools.length === 0) return head;
  const named = tools.slice(0, MAX_NAMED_TOOLS).join(', ');
  return `${head}: ${named}${tools.length > MAX_NAMED_TOOLS ? ', …' : ''}`;
}

/** Whether the view leaves this item out: an expansion step while the setting hides them. */
export function foldedAway(item: ChatItem, state: ChatState): boolean {
  if (state.showExpansionSteps) return false;
  return item.kind === 'expansion' || (item.kind === 'tool' && item.expansionStep === true);
}

/** The line a card shows for the expansion folded into it, or undefined (none, or the steps are shown). */
export function foldNote(item: ToolItem, state: ChatState): string | undefined {
  return state.showExpansionSteps ? undefined : item.expansionNote;
}

/**
 * A `groupExpanded` arrived: the backend's card for the expanding call (sent just before it, with
 * the group's or skill's name and no arguments) is marked as a step.
 */
export function markExpansionCard(items: ChatItem[], ev: { runId: string; group: string; skill?: string | undefined }): ChatItem[] {
  const i = items.length - 1;
  const last = items[i];
  if (last?.kind !== 'tool' || last.executor !== 'backend' || last.runId !== ev.runId) return items;
  if (!isContainerOf(last.toolName, ev.group) && last.toolName !== ev.skill && !isContainerOf(last.toolName, ev.skill)) return items;
  const out = items.slice();
  out[i] = { ...last, expansionStep: true };
  return out;
}

/**
 * A new tool card in run `card.runId`: the latest expansion of that run that loaded its tool (or
 * group) and no card carries yet is folded into it. Returns the items with that expansion marked,
 * and the card with its note; unchanged when there is none.
 */
export function foldInto(items: ChatItem[], card: Omit<ToolItem, 'id'>): { items: ChatItem[]; card: Omit<ToolItem, 'id'> } {
  if (card.runId === '' || card.expansionStep) return { items, card };
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.kind !== 'expansion' || it.runId !== card.runId || it.foldedInto === true) continue;
    if (!loads(it, card)) continue;
    const out = items.slice();
    out[i] = { ...it, foldedInto: true };
    return { items: out, card: { ...card, expansionNote: describeFold(it.group, it.tools, it.skill) } };
  }
  return { items, card };
}

function loads(expansion: ExpansionItem, card: Omit<ToolItem, 'id'>): boolean {
  return expansion.tools.includes(card.toolName) || (card.group !== undefined && card.group === expansion.group);
}

/**
 * Whether `toolName` is the backend's function for the group or skill `name`: the name itself, or as
 * a function name ("MCP: everything" → `MCP__everything_<digest>`, one rule in
 * src/protocol/functionNames.ts; a taken name is refused, never suffixed).
 */
function isContainerOf(toolName: string, name: string | undefined): boolean {
  if (name === undefined) return false;
  return toolName === name || toolName === toFunctionName(name);
}
