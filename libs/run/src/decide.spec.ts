import { MACRO, call, given, micro, reply, requested, toolAnswers } from './given.spec-helper';

const show = (g: ReturnType<typeof given>, label: string) => console.log(label, JSON.stringify(g.events.map((e) => [e.type, e.type === 'StageEntered' ? [e.data.stage, e.data.iteration, e.data.contextId, e.data.policy.tools] : e.type === 'MessageAppended' ? [e.data.kind, e.data.content.slice(0, 60)] : e.data])));

it('explore', () => {
  const g = given().after(requested(), reply(`${MACRO}\nI will read.`), reply(`${micro()}\nReading.`, [call('read_file')]), toolAnswers(), reply(`${micro({ delivery: 'DONE' })}\nFixed.`), reply(micro({ delivery: 'DONE' })));
  show(g, 'flow');
  const h = given().after(requested(), reply(`${MACRO}\nI will read.`));
  const r = h.when(reply(`${micro()}\n<return-control>x</return-control>`)).events();
  console.log(JSON.stringify(r));
  const d = h.when(reply(`${micro()}\n<delegate-reasoning agent="code reviewer">look</delegate-reasoning>`));
  try { d.events(); } catch (e) { console.log('THROWS', e); }
});
