import 'reflect-metadata';
import { serviceMain } from '@stagecraft/service-shell';
import { policyService } from '@stagecraft/policy-service';

serviceMain('policy', () => policyService, process.env);
