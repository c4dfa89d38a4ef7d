import { ApprovalPolicy, PHASES, SERVICE_NAMES, UserMode } from '@stagecraft/contracts';
import { InvalidArgumentError } from 'commander';
import {
  APPROVAL_POLICIES,
  PHASE_NAMES,
  SERVICES,
  USER_MODES,
  milliseconds,
  parseGates,
  parsePhases,
  parseServices,
  wholeNumber,
} from './options';

describe('the option lists the CLI loads without the contracts', () => {
  it('are the contracts’ own', () => {
    expect([...USER_MODES].sort()).toEqual([...UserMode.options].sort());
    expect([...APPROVAL_POLICIES]).toEqual([...ApprovalPolicy.options]);
    expect([...PHASE_NAMES]).toEqual([...PHASES]);
    expect([...SERVICES]).toEqual([...SERVICE_NAMES]);
  });
});

describe('numeric options', () => {
  it.each(['abc', '', ' ', '10s', '1.5', '-5', '1e3', 'NaN', 'Infinity', '0x10'])('refuse %j', (value) => {
    expect(() => milliseconds(value)).toThrow(InvalidArgumentError);
  });

  it('keep whole numbers inside their bounds', () => {
    const limit = wholeNumber(1, 500);
    expect([limit('1'), limit('500'), milliseconds('2000')]).toEqual([1, 500, 2000]);
    expect(() => limit('0')).toThrow('a whole number from 1 to 500');
    expect(() => limit('501')).toThrow(InvalidArgumentError);
    expect(() => milliseconds('0')).toThrow(InvalidArgumentError);
  });
});

describe('list options', () => {
  it('read comma-separated names and name what is unknown', () => {
    expect(parseServices('qa, memory')).toEqual(['qa', 'memory']);
    expect(parseGates('after-planning')).toEqual(['after-planning']);
    expect(() => parsePhases('discovery,review')).toThrow(
      'unknown phase(s) review; a comma-separated list of discovery, planning, tickets',
    );
    expect(() => parseServices('policy,oracle')).toThrow('unknown service(s) oracle; a comma-separated list of conversation,');
    expect(() => parseServices(',')).toThrow(InvalidArgumentError);
  });
});
