package indoubt.lab.seata;

import java.util.Map;

/**
 * The services of the harness's saga ({@code indoubt/lab/seata/saga/indoubt_lab_order.json}),
 * a Spring bean named {@code orderSaga}: Reserve (compensated by Release), Debit
 * (compensated by Refund), then Charge. How Charge and Refund behave comes from the start
 * parameters {@code chargeMode} ({@code ok}; {@code halt}: the JVM halts inside it;
 * {@code throw}: an exception no Catch names; {@code decline}: {@link Declined}, which the
 * machine catches and compensates) and {@code refundMode} ({@code ok}; {@code fail}:
 * returns false, the state's status FA; {@code throw}: an exception).
 */
public class OrderSaga {

    /** A business refusal: the machine's Catch sends it to compensation. */
    public static class Declined extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Declined(String message) {
            super(message);
        }
    }

    public boolean reserve(Map<String, Object> in) {
        Stuck.say("saga-state name=Reserve business_key=" + in.get("businessKey") + " outcome=ok");
        return true;
    }

    public boolean debit(Map<String, Object> in) {
        Stuck.say("saga-state name=Debit business_key=" + in.get("businessKey") + " outcome=ok");
        return true;
    }

    public boolean charge(Map<String, Object> in) {
        String mode = String.valueOf(in.get("chargeMode"));
        Stuck.say("saga-state name=Charge business_key=" + in.get("businessKey") + " outcome=" + mode);
        switch (mode) {
            case "halt" -> Stuck.halt("inside the saga's Charge state (the instance is running)");
            case "throw" -> throw new IllegalStateException("indoubt lab: Charge failed with no Catch for it");
            case "decline" -> throw new Declined("indoubt lab: Charge declined");
            default -> { }
        }
        return true;
    }

    public boolean refund(Map<String, Object> in) {
        String mode = String.valueOf(in.get("refundMode"));
        Stuck.say("saga-state name=Refund business_key=" + in.get("businessKey") + " outcome=" + mode);
        if ("throw".equals(mode)) {
            throw new IllegalStateException("indoubt lab: the compensation Refund fails");
        }
        return !"fail".equals(mode);
    }

    public boolean release(Map<String, Object> in) {
        Stuck.say("saga-state name=Release business_key=" + in.get("businessKey") + " outcome=ok");
        return true;
    }
}
