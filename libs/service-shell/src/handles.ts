import { MessagePattern } from '@nestjs/microservices';
import { RequestSubject } from '@stagecraft/contracts';

/** `@MessagePattern` restricted to the subjects that have a contract. */
export const Handles = (subject: RequestSubject): MethodDecorator => MessagePattern(subject);
