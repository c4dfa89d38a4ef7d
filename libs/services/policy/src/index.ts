/** The policy service: which tools and limits each stage of a run gets, as a handler table. */
import { defineService } from '@stagecraft/service-shell';
import { decide } from './decide/decide.handler';
import { table } from './table/table.handler';

export const policyService = defineService({
  name: 'policy',
  usesStore: false,
  handlers: { 'policy.decide': decide, 'policy.table': table },
});
