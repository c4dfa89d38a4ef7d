import { Catch, RpcExceptionFilter } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';

/**
 * Nest's default RPC filter replaces any error that is not its own RpcException with
 * `{ status: 'error', message: 'Internal server error' }`, which would turn FORBIDDEN_TOOL into
 * INTERNAL. Passing the error on untouched lets the request edge map its code to the reply.
 */
@Catch()
export class PassErrorsThrough implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
