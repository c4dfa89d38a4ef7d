import { PlanningAgentResult, PlanningCollectorResult, PlanningTicket, TicketAgentResult } from '@stagecraft/contracts';
import { consolidationLines } from './render-consolidation';
import { bullets, capped } from './text';

/** A ticket on its own is the reader's work, so its description is shown at length. */
export const MAX_TICKET_DESCRIPTION_CHARS = 8_000;
/** In a list of up to 32 tickets each description is cut shorter, so the list stays readable. */
export const MAX_LISTED_DESCRIPTION_CHARS = 1_000;
export const MAX_SUMMARY_CHARS = 4_000;

const none = (items: readonly string[]): string => (items.length === 0 ? 'none' : items.join(', '));

/** `Ticket <ticketId>: <title>`, then priority, order, files, acceptance criteria and description. */
export function ticketLines(ticket: PlanningTicket, heading: '###' | '####', maxDescription: number): string[] {
  return [
    `${heading} Ticket ${ticket.ticketId}: ${ticket.title}`,
    '',
    `Priority: ${ticket.priority}. Depends on: ${none(ticket.dependsOn)}.`,
    `Files: ${none(ticket.files)}`,
    'Acceptance criteria:',
    bullets(ticket.acceptanceCriteria),
    '',
    capped(ticket.description, maxDescription),
  ];
}

export const renderTicket = (ticket: PlanningTicket): string => ticketLines(ticket, '###', MAX_TICKET_DESCRIPTION_CHARS).join('\n');

const ticketList = (tickets: readonly PlanningTicket[]): string[] =>
  tickets.flatMap((t) => ['', ...ticketLines(t, '####', MAX_LISTED_DESCRIPTION_CHARS)]);

export function renderPlanning(result: PlanningAgentResult): string {
  return [
    `### Planning result ${result.resultId}`,
    '',
    capped(result.summary, MAX_SUMMARY_CHARS),
    '',
    'Tickets:',
    ...ticketList(result.tickets),
  ].join('\n');
}

/** The curation's order first, then any ticket it leaves out, in the order planned. */
export function orderedTickets(result: PlanningCollectorResult): PlanningTicket[] {
  const byId = new Map(result.tickets.map((t) => [t.ticketId, t]));
  const ordered = result.planningCuration.order.flatMap((id) => {
    const ticket = byId.get(id);
    byId.delete(id);
    return ticket === undefined ? [] : [ticket];
  });
  return [...ordered, ...byId.values()];
}

export function renderPlanningCollector(result: PlanningCollectorResult): string {
  const tickets = orderedTickets(result);
  return [
    `### Planning collector result ${result.resultId}`,
    '',
    ...consolidationLines(result),
    '',
    'Plan:',
    '',
    capped(result.planningCuration.summary, MAX_SUMMARY_CHARS),
    '',
    tickets.length === 0 ? 'Tickets, in order: none' : 'Tickets, in order:',
    ...ticketList(tickets),
  ].join('\n');
}

export function renderTicketResult(result: TicketAgentResult): string {
  return [
    `### Ticket result ${result.resultId}`,
    '',
    `Ticket ${result.ticketId}: ${result.status}`,
    `Files changed: ${none(result.filesChanged)}`,
    '',
    capped(result.summary, MAX_SUMMARY_CHARS),
  ].join('\n');
}
