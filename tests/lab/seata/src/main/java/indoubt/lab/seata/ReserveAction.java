package indoubt.lab.seata;

import io.seata.rm.tcc.api.BusinessActionContext;
import io.seata.rm.tcc.api.BusinessActionContextParameter;
import io.seata.rm.tcc.api.LocalTCC;
import io.seata.rm.tcc.api.TwoPhaseBusinessAction;

/**
 * The harness's TCC action: Try reserves (inserts a row {@code (id, amount, 'reserved')}
 * into the business table), Confirm marks it {@code 'confirmed'}, Cancel deletes it. With
 * the fence ({@code useTCCFence}): each phase runs in one local transaction with its
 * {@code tcc_fence_log} row. Its TCC resource id is {@link #NAME}.
 */
@LocalTCC
public interface ReserveAction {
    String NAME = "indoubt-lab-reserve";

    @TwoPhaseBusinessAction(name = NAME, commitMethod = "confirm", rollbackMethod = "cancel",
        useTCCFence = true)
    boolean reserve(BusinessActionContext context,
                    @BusinessActionContextParameter(paramName = "table") String table,
                    @BusinessActionContextParameter(paramName = "id") long id,
                    @BusinessActionContextParameter(paramName = "amount") int amount);

    boolean confirm(BusinessActionContext context);

    boolean cancel(BusinessActionContext context);
}
