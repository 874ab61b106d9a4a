package indoubt.lab.seata;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import io.seata.rm.tcc.api.BusinessActionContext;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * {@link ReserveAction} over the business database. Its SQL joins the fence's local
 * transaction (Spring's {@link DataSourceUtils} on the fence's data source), so a Try's
 * row and its "tried" fence row commit or roll back together.
 */
public class ReserveActionImpl implements ReserveAction {
    /** How the phases behave; set once by the command before the first call. */
    static volatile DataSource dataSource;
    static volatile boolean tryFails;
    static volatile boolean cancelFails;
    private static int cancelAttempts;

    @Override
    public boolean reserve(BusinessActionContext context, String table, long id, int amount) {
        Stuck.say("branch xid=" + context.getXid() + " branch_id=" + context.getBranchId()
            + " type=TCC resource=" + NAME + " action=" + context.getActionName()
            + " table=" + table + " pk=" + id);
        if (tryFails) {
            Stuck.say("try-failed xid=" + context.getXid() + " branch_id=" + context.getBranchId());
            throw new IllegalStateException("indoubt lab: the Try fails (tcc-suspended)");
        }
        update("INSERT INTO " + table + " (id, amount, note) VALUES (?, " + amount + ", 'reserved')", id);
        Stuck.say("tried xid=" + context.getXid() + " branch_id=" + context.getBranchId());
        return true;
    }

    @Override
    public boolean confirm(BusinessActionContext context) {
        Stuck.say("confirm xid=" + context.getXid() + " branch_id=" + context.getBranchId());
        update("UPDATE " + context.getActionContext("table") + " SET note = 'confirmed' WHERE id = ?",
            id(context));
        return true;
    }

    @Override
    public boolean cancel(BusinessActionContext context) {
        int attempt;
        synchronized (ReserveActionImpl.class) {
            attempt = ++cancelAttempts;
        }
        Stuck.say("cancel attempt=" + attempt + " xid=" + context.getXid()
            + " branch_id=" + context.getBranchId() + (cancelFails ? " outcome=throws" : " outcome=ok"));
        if (cancelFails) {
            throw new IllegalStateException("indoubt lab: the Cancel fails (tcc-cancel-fails), attempt " + attempt);
        }
        update("DELETE FROM " + context.getActionContext("table") + " WHERE id = ?", id(context));
        return true;
    }

    private static long id(BusinessActionContext context) {
        return Long.parseLong(String.valueOf(context.getActionContext("id")));
    }

    private static void update(String sql, long id) {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setLong(1, id);
            st.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }
}
