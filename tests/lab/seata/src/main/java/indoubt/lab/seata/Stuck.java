package indoubt.lab.seata;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import io.seata.core.exception.TransactionException;
import io.seata.core.model.BranchStatus;
import io.seata.core.model.BranchType;
import io.seata.core.model.GlobalStatus;
import io.seata.integration.tx.api.util.ProxyUtil;
import io.seata.rm.DefaultResourceManager;
import io.seata.rm.RMClient;
import io.seata.rm.datasource.DataSourceProxy;
import io.seata.rm.datasource.xa.DataSourceProxyXA;
import io.seata.rm.datasource.xa.ResourceManagerXA;
import io.seata.rm.fence.SpringFenceConfig;
import io.seata.saga.engine.config.DbStateMachineConfig;
import io.seata.saga.engine.impl.ProcessCtrlStateMachineEngine;
import io.seata.saga.rm.StateMachineEngineHolder;
import io.seata.saga.statelang.domain.StateMachineInstance;
import io.seata.tm.TMClient;
import io.seata.tm.api.GlobalTransaction;
import io.seata.tm.api.GlobalTransactionContext;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.xa.PGXADataSource;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Leaves Apache Seata 2.0.0's stuck states for indoubt's tests, with the real clients
 * (seata-all) against a real Seata server, each through the framework's own code paths.
 *
 * <pre>
 *   Stuck at-dirty          tc=HOST:PORT db=JDBC_URL table=NAME id=N [app=NAME] [group=NAME]
 *                           [timeout_ms=N] [halt=none|after-dirty-write]
 *   Stuck at-blocked        tc=... db=JDBC_URL table=NAME id=N [app=NAME] [held_by=XID]
 *   Stuck at-serve          tc=... db=JDBC_URL table=NAME id=N [app=NAME] [serve_ms=N]
 *                           [until_ended=XID]
 *   Stuck tcc-no-cancel     tc=... db=JDBC_URL table=NAME id=N app=NAME [timeout_ms=N]
 *   Stuck tcc-cancel-fails  tc=... db=JDBC_URL table=NAME id=N app=NAME [serve_ms=N]
 *   Stuck tcc-suspended     tc=... db=JDBC_URL table=NAME id=N app=NAME
 *   Stuck saga-running      tc=... db=JDBC_URL business_key=KEY app=NAME [timeout_ms=N]
 *   Stuck saga-unknown      tc=... db=JDBC_URL business_key=KEY app=NAME [serve_ms=N]
 *   Stuck saga-compensation-failed  tc=... db=JDBC_URL business_key=KEY app=NAME [serve_ms=N]
 *   Stuck saga-compensation-unknown tc=... db=JDBC_URL business_key=KEY app=NAME [serve_ms=N]
 *   Stuck xa                tc=... db=JDBC_URL [db=JDBC_URL] table=NAME id=N app=NAME
 *                           [halt=prepared|commit] [timeout_ms=N]
 * </pre>
 *
 * Exit status: 0 after {@code done}; 1 after {@code halting:} (the JVM halted on purpose);
 * 2 when the row {@code id} exists already; anything else is a failure (a Java exception
 * on stderr). tests/lab/seata/README.md says what each state looks like in the
 * coordinator's and the clients' tables, as observed.
 *
 * <h2>Arguments</h2>
 * <ul>
 * <li>{@code tc}: the Seata server's transaction service, {@code 127.0.0.1:PORT}
 *     ({@code tests/lab/seata/server}'s {@code INDOUBT_LAB_SEATA_PG_TC} or {@code _MARIADB_TC}).
 * <li>{@code db}: a business database that exists:
 *     {@code jdbc:postgresql://HOST:PORT/DB?user=U&password=P} or
 *     {@code jdbc:mariadb://HOST:PORT/DB?user=U&password=P} (MariaDB Connector/J 2.7). The
 *     harness makes Seata's client tables there first ({@code sql/client-*.sql}:
 *     {@code undo_log}, {@code tcc_fence_log}, {@code seata_state_machine_def},
 *     {@code seata_state_machine_inst}, {@code seata_state_inst}) and, for the commands with
 *     a {@code table}, the business table
 *     {@code (id bigint PRIMARY KEY, amount integer NOT NULL, note varchar(64) NOT NULL)}.
 *     Give each test its own database: an AT branch's resource id is the database's URL
 *     (without its parameters), and the coordinator hands a stuck AT branch's rollback to
 *     any connected client of that resource, whatever its application id.
 * <li>{@code table}, {@code id}: the business row; {@code id} must not exist yet in
 *     {@code table} (exit 2 otherwise), so that a run never touches an earlier run's row.
 *     at-dirty inserts it as {@code (id, 100, 'before')} first; the TCC Try and the XA
 *     branches insert it themselves.
 * <li>{@code app}: the Seata application id (at most 32 characters; default
 *     {@code indoubt-lab}). Give each test its own: the coordinator hands TCC, saga and XA
 *     branches back to clients of the same application id only.
 * <li>{@code group}: the transaction service group (default {@code indoubt-lab-group}).
 * <li>{@code timeout_ms}: the global transaction's timeout (default 60000, Seata's own).
 * <li>{@code serve_ms}: how long the process stays up after the state is made (its clients
 *     answering the coordinator's retries) before it exits (default 3000).
 * <li>{@code business_key}: the saga instance's business key (at most 48 characters,
 *     unique per database).
 * <li>{@code halt}: where at-dirty or xa stops the JVM ({@code Runtime.halt}, no shutdown
 *     hooks: the clients vanish as in a crash).
 * <li>{@code held_by}: at-blocked only, the xid printed as {@code held_by=}.
 * </ul>
 *
 * <h2>The states</h2>
 * <ul>
 * <li>{@code at-dirty}: a global transaction (name {@code indoubt-lab-at-dirty}) updates the
 *     row through Seata's AT {@code DataSourceProxy} ({@code amount} 100 to 90, {@code note}
 *     'seata'); the row is then changed outside Seata ({@code amount} 7, {@code note}
 *     'dirty'); the TM rolls the global back: the undo finds the dirty row and the branch
 *     cannot roll back (global RollbackFailed). A second global transaction (name
 *     {@code indoubt-lab-at-blocked}) then updates the same row through Seata and fails on
 *     the first one's global lock. With {@code halt=after-dirty-write} the JVM halts right
 *     after the dirty write instead: nobody rolls the global back until it times out, then
 *     the coordinator retries its rollback with no client to take it.
 * <li>{@code at-blocked}: only the second part: a new global transaction updates the row
 *     through Seata (this process's client also takes any retried rollback of that
 *     database's stuck branches meanwhile).
 * <li>{@code at-serve}: an AT client of the database and nothing else: its RM takes the
 *     coordinator's retried rollbacks of that database's stuck branches for
 *     {@code serve_ms} — or, with {@code until_ended}, until the coordinator has ended that
 *     global, at most {@code serve_ms} — then the row is printed.
 * <li>{@code tcc-no-cancel}: a TCC Try (fence row status 1, the business row 'reserved')
 *     whose global is never ended by its client: the JVM halts after the Try.
 * <li>{@code tcc-cancel-fails}: a Try, then the TM rolls the global back and the Cancel
 *     throws on every call; the coordinator keeps retrying it.
 * <li>{@code tcc-suspended}: the Try fails after its branch was registered (its fence row
 *     is rolled back with it); the TM rolls the global back and the Cancel arrives with no
 *     fence row: the fence writes a suspended (4) row and skips the Cancel (Seata's
 *     empty-rollback / anti-hanging path).
 * <li>The saga commands run the state machine {@code indoubtLabOrder}
 *     ({@code saga/indoubt_lab_order.json}, {@link OrderSaga}): Reserve (compensated by
 *     Release), Debit (compensated by Refund), Charge; each instance is its own global
 *     transaction (name {@code $Saga_indoubtLabOrder}).
 *     {@code saga-running}: the JVM halts inside Charge: the instance stays running.
 *     {@code saga-unknown}: Charge throws an exception the machine does not catch: the
 *     instance ends with status UN and no compensation.
 *     {@code saga-compensation-failed}: Charge is declined (caught), the machine
 *     compensates; Refund returns false (state FA): compensation stops, status FA.
 *     {@code saga-compensation-unknown}: the same, but Refund throws: compensation UN.
 * <li>{@code xa}: one global transaction (name {@code indoubt-lab-xa}) inserts the row
 *     {@code (id, 100, 'xa')} into {@code table} of every {@code db} through Seata's XA
 *     {@code DataSourceProxyXA}; each branch ends phase one prepared in its database
 *     (XA format id 9752, gtrid the xid's text, bqual "-" and the branch id).
 *     {@code halt=prepared} (default): the JVM halts then, before the TM decides.
 *     {@code halt=commit}: the TM asks the coordinator to commit; the JVM halts when the
 *     first branch's commit reaches it (the coordinator has decided commit).
 * </ul>
 *
 * <h2>Printed lines</h2>
 * One line per fact, on stdout, {@code KIND key=value ...}; values have no spaces except
 * {@code message=}, which is always last and runs to the end of the line. Seata's own
 * logs go to stderr.
 * <ul>
 * <li>{@code global xid=X app=A group=G name=N timeout_ms=T}: a global transaction begun.
 * <li>{@code branch xid=X branch_id=B type=AT|TCC|XA resource=R table=T pk=N} (TCC adds
 *     {@code action=NAME}; XA adds {@code db=pg|mariadb}): a branch of it.
 * <li>{@code row table=T pk=N amount=A note=S}: the business row as read after a step.
 * <li>{@code undo xid=X branch_id=B log_status=S context=C}: the branch's undo_log row.
 * <li>{@code dirty-write table=T pk=N amount=7 note=dirty}: the row changed outside Seata.
 * <li>{@code rollback xid=X status=NAME code=N} / {@code commit xid=X status=NAME code=N}:
 *     what the coordinator answered the TM ({@code status=error} with {@code message=}
 *     when it answered with an error).
 * <li>{@code lock-conflict xid=X2 table=T pk=N held_by=X error=CLASS message=...}: the second
 *     global's update failed on the global lock.
 * <li>{@code tried ...}, {@code try-failed ...}, {@code cancel attempt=K xid=X branch_id=B
 *     outcome=throws|ok}, {@code confirm ...}: the TCC phases as they run.
 * <li>{@code fence xid=X branch_id=B action=NAME status=S}: the branch's tcc_fence_log row
 *     ({@code status=none} when it has none).
 * <li>{@code saga-start machine=NAME business_key=K app=A group=G timeout_ms=T}: the engine starts it.
 * <li>{@code saga-state name=STATE business_key=K outcome=...}: a saga service runs.
 * <li>{@code saga-returned id=I status=S compensation_status=S}: what the engine returned
 *     ({@code saga-error ... message=} when it threw).
 * <li>{@code saga-instance xid=X id=I machine=NAME business_key=K status=S
 *     compensation_status=S is_running=true|false}: the instance's row, when the engine
 *     has returned.
 * <li>{@code saga-state-row id=I name=STATE status=S compensated_for=ID}: each of its state
 *     rows ({@code null} when it compensates nothing).
 * <li>{@code no-lock-conflict ...}: the second global's update went through (not expected).
 * <li>{@code branch-commit-received xid=X branch_id=B resource=R}: xa halt=commit, the
 *     coordinator's commit of a branch reached the client.
 * <li>{@code try-error xid=X error=CLASS message=...}: the Try failed (tcc-suspended).
 * <li>{@code serving ms=N}: the process stays up that long.
 * <li>{@code resource id=R}: at-serve, the AT resource its client registered.
 * <li>{@code xa-prepared db=pg|mariadb format=9752 gtrid=TEXT bqual=TEXT gtrid_hex=H
 *     bqual_hex=H}: an XA branch of this global prepared in that database (read with XA
 *     RECOVER).
 * <li>{@code halting: WHERE}: the JVM halts now (the last line).
 * <li>{@code done}: the command finished and exits 0 (not after {@code halting:}).
 * </ul>
 */
public final class Stuck {
    private static final PrintStream OUT = System.out;

    private Stuck() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: Stuck COMMAND key=value... (see the header of Stuck.java)");
        }
        Settings s = new Settings(args);
        configureClient(s);
        switch (args[0]) {
            case "at-dirty" -> atDirty(s);
            case "at-blocked" -> atBlocked(s);
            case "at-serve" -> atServe(s);
            case "tcc-no-cancel", "tcc-cancel-fails", "tcc-suspended" -> tcc(s, args[0]);
            case "saga-running", "saga-unknown", "saga-compensation-failed", "saga-compensation-unknown" -> saga(s, args[0]);
            case "xa" -> xa(s);
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
        say("done");
        System.exit(0);
    }

    static synchronized void say(String line) {
        OUT.println(line);
        OUT.flush();
    }

    static void halt(String where) {
        say("halting: " + where);
        Runtime.getRuntime().halt(1);
    }

    /**
     * Seata's client settings as system properties (its configuration reads them before
     * any file): no registry.conf or file.conf, the server given by {@code tc}.
     */
    private static void configureClient(Settings s) {
        System.setProperty("registry.type", "file");
        System.setProperty("config.type", "file");
        System.setProperty("config.file.name", "indoubt-lab-seata-none.conf");
        System.setProperty("service.vgroupMapping." + s.group, "default");
        System.setProperty("service.default.grouplist", s.tc);
        System.setProperty("service.disableGlobalTransaction", "false");
        System.setProperty("client.undo.logSerialization", "jackson");
        System.setProperty("client.tm.degradeCheck", "false");
        System.setProperty("client.rm.tableMetaCheckEnable", "false");
    }

    private static void initClients(Settings s) {
        TMClient.init(s.app, s.group);
        RMClient.init(s.app, s.group);
    }

    // ---------------------------------------------------------------- AT

    private static void atDirty(Settings s) throws Exception {
        String db = s.db();
        DataSource raw = dataSource(db);
        prepareBusiness(raw, db, s, true);
        initClients(s);
        DataSourceProxy proxy = new DataSourceProxy(raw);
        String t = s.table();
        long id = s.id();

        GlobalTransaction tx = GlobalTransactionContext.getCurrentOrCreate();
        tx.begin(s.timeoutMillis, "indoubt-lab-at-dirty");
        String xid = tx.getXid();
        say("global xid=" + xid + " app=" + s.app + " group=" + s.group + " name=indoubt-lab-at-dirty timeout_ms=" + s.timeoutMillis);
        try (Connection c = proxy.getConnection();
             PreparedStatement st = c.prepareStatement("UPDATE " + t + " SET amount = amount - 10, note = 'seata' WHERE id = ?")) {
            st.setLong(1, id);
            st.executeUpdate();
        }
        long branchId = -1;
        try (Connection c = raw.getConnection();
             PreparedStatement st = c.prepareStatement("SELECT branch_id, log_status, context FROM undo_log WHERE xid = ?")) {
            st.setString(1, xid);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    branchId = rs.getLong(1);
                    say("undo xid=" + xid + " branch_id=" + branchId + " log_status=" + rs.getInt(2) + " context=" + rs.getString(3));
                }
            }
        }
        say("branch xid=" + xid + " branch_id=" + branchId + " type=AT resource=" + proxy.getResourceId()
            + " table=" + t + " pk=" + id);
        printRow(raw, t, id);

        // The dirty write: the same row, changed by someone who does not go through Seata.
        execute(raw, "UPDATE " + t + " SET amount = 7, note = 'dirty' WHERE id = " + id);
        say("dirty-write table=" + t + " pk=" + id + " amount=7 note=dirty");
        if (s.halt("none", "after-dirty-write").equals("after-dirty-write")) {
            halt("after the dirty write, before the global's rollback");
        }

        finish(tx, false);
        blocked(s, proxy, raw, xid);
    }

    /** at-blocked: a new global transaction updates the row through Seata. */
    private static void atBlocked(Settings s) throws Exception {
        String db = s.db();
        DataSource raw = dataSource(db);
        initClients(s);
        DataSourceProxy proxy = new DataSourceProxy(raw);
        blocked(s, proxy, raw, s.opt("held_by", "unknown"));
    }

    /** at-serve: an AT resource manager of the database, answering retried rollbacks. */
    private static void atServe(Settings s) throws Exception {
        DataSource raw = dataSource(s.db());
        initClients(s);
        DataSourceProxy proxy = new DataSourceProxy(raw);
        say("resource id=" + proxy.getResourceId());
        String xid = s.opt("until_ended", null);
        if (xid == null) {
            serve(s);
        } else {
            // Until the coordinator has ended that global (it answers Finished for one it
            // no longer has), at most serve_ms: a fixed time is too short when the
            // machine is busy.
            say("serving ms=" + s.serveMillis + " until_ended=" + xid);
            long deadline = System.currentTimeMillis() + s.serveMillis;
            while (System.currentTimeMillis() < deadline && !ended(xid)) {
                Thread.sleep(200);
            }
        }
        printRow(raw, s.table(), s.id());
    }

    /** Anyone else who goes through Seata waits on the global lock, and fails. */
    private static void blocked(Settings s, DataSourceProxy proxy, DataSource raw, String xid) throws Exception {
        String t = s.table();
        long id = s.id();
        GlobalTransaction blocked = GlobalTransactionContext.createNew();
        blocked.begin(s.timeoutMillis, "indoubt-lab-at-blocked");
        say("global xid=" + blocked.getXid() + " app=" + s.app + " group=" + s.group
            + " name=indoubt-lab-at-blocked timeout_ms=" + s.timeoutMillis);
        try (Connection c = proxy.getConnection();
             PreparedStatement st = c.prepareStatement("UPDATE " + t + " SET amount = amount + 1 WHERE id = ?")) {
            st.setLong(1, id);
            st.executeUpdate();
            say("no-lock-conflict xid=" + blocked.getXid() + " table=" + t + " pk=" + id);
        } catch (SQLException e) {
            say("lock-conflict xid=" + blocked.getXid() + " table=" + t + " pk=" + id + " held_by=" + xid
                + " error=" + e.getClass().getName() + " message=" + oneLine(e.getMessage()));
        }
        finish(blocked, false);
        printRow(raw, t, id);
    }

    // ---------------------------------------------------------------- TCC

    private static void tcc(Settings s, String command) throws Exception {
        String db = s.db();
        DataSource raw = dataSource(db);
        prepareBusiness(raw, db, s, false);
        ReserveActionImpl.dataSource = raw;
        ReserveActionImpl.tryFails = command.equals("tcc-suspended");
        ReserveActionImpl.cancelFails = command.equals("tcc-cancel-fails");
        initClients(s);
        // The fence, as seata-spring-boot-starter sets it up: Spring's JDBC transactions
        // over the business database, the default table name; no clean task in this
        // short-lived process.
        SpringFenceConfig fence = new SpringFenceConfig(raw, new DataSourceTransactionManager(raw));
        fence.setLogTableName("tcc_fence_log");
        fence.setCleanPeriod(Duration.ZERO);
        fence.afterPropertiesSet();
        fence.init();
        ReserveAction action = ProxyUtil.createProxy(new ReserveActionImpl());

        String name = "indoubt-lab-" + command;
        GlobalTransaction tx = GlobalTransactionContext.getCurrentOrCreate();
        tx.begin(s.timeoutMillis, name);
        String xid = tx.getXid();
        say("global xid=" + xid + " app=" + s.app + " group=" + s.group + " name=" + name + " timeout_ms=" + s.timeoutMillis);
        try {
            action.reserve(null, s.table(), s.id(), 100);
        } catch (RuntimeException e) {
            say("try-error xid=" + xid + " error=" + e.getClass().getName() + " message=" + oneLine(e.getMessage()));
        }
        printFence(raw, xid);
        printRow(raw, s.table(), s.id());
        if (command.equals("tcc-no-cancel")) {
            halt("after the TCC Try, before the global's commit or rollback");
        }
        finish(tx, false);
        if (command.equals("tcc-cancel-fails")) {
            serve(s);
        }
        printFence(raw, xid);
        printRow(raw, s.table(), s.id());
    }

    // ---------------------------------------------------------------- SAGA

    private static void saga(Settings s, String command) throws Exception {
        String db = s.db();
        DataSource raw = dataSource(db);
        runScript(raw, db);
        String key = s.businessKey();
        GenericApplicationContext context = new GenericApplicationContext();
        context.registerBean("orderSaga", OrderSaga.class);
        context.refresh();
        DbStateMachineConfig config = new DbStateMachineConfig();
        config.setApplicationContext(context);
        config.setDataSource(raw);
        config.setResources(new String[] {"classpath*:indoubt/lab/seata/saga/*.json"});
        config.setApplicationId(s.app);
        config.setTxServiceGroup(s.group);
        config.setEnableAsync(false);
        config.setTransOperationTimeout(s.timeoutMillis);
        // Inits the TM and RM clients (DefaultSagaTransactionalTemplate) and loads the machine.
        config.afterPropertiesSet();
        ProcessCtrlStateMachineEngine engine = new ProcessCtrlStateMachineEngine();
        engine.setStateMachineConfig(config);
        // The coordinator's commit and rollback retries of saga branches reach the engine here.
        new StateMachineEngineHolder().setStateMachineEngine(engine);

        Map<String, Object> params = new LinkedHashMap<>();
        params.put("businessKey", key);
        params.put("chargeMode", switch (command) {
            case "saga-running" -> "halt";
            case "saga-unknown" -> "throw";
            default -> "decline";
        });
        params.put("refundMode", switch (command) {
            case "saga-compensation-failed" -> "fail";
            case "saga-compensation-unknown" -> "throw";
            default -> "ok";
        });
        say("saga-start machine=indoubtLabOrder business_key=" + key + " app=" + s.app + " group=" + s.group
            + " timeout_ms=" + s.timeoutMillis);
        StateMachineInstance instance;
        try {
            instance = engine.startWithBusinessKey("indoubtLabOrder", null, key, params);
        } catch (RuntimeException e) {
            say("saga-error error=" + e.getClass().getName() + " message=" + oneLine(e.getMessage()));
            instance = null;
        }
        if (instance != null) {
            say("saga-returned id=" + instance.getId() + " status=" + instance.getStatus()
                + " compensation_status=" + instance.getCompensationStatus());
        }
        // As the engine left it; the coordinator's retries that reach this process while it
        // serves add rows of their own.
        printSaga(raw, key);
        serve(s);
    }

    // ---------------------------------------------------------------- XA

    private static void xa(Settings s) throws Exception {
        if (s.databases.isEmpty()) {
            throw new IllegalArgumentException("missing db=");
        }
        List<DataSource> raws = new ArrayList<>();
        for (String db : s.databases) {
            DataSource raw = dataSource(db);
            prepareBusiness(raw, db, s, false);
            raws.add(raw);
        }
        initClients(s);
        String halt = s.halt("prepared", "commit");
        if (halt.equals("commit")) {
            DefaultResourceManager.get();
            DefaultResourceManager.mockResourceManager(BranchType.XA, new HaltingResourceManagerXA());
        }
        List<DataSourceProxyXA> proxies = new ArrayList<>();
        for (DataSource raw : raws) {
            proxies.add(new DataSourceProxyXA(raw));
        }
        GlobalTransaction tx = GlobalTransactionContext.getCurrentOrCreate();
        tx.begin(s.timeoutMillis, "indoubt-lab-xa");
        String xid = tx.getXid();
        say("global xid=" + xid + " app=" + s.app + " group=" + s.group + " name=indoubt-lab-xa timeout_ms=" + s.timeoutMillis);
        for (int i = 0; i < proxies.size(); i++) {
            DataSourceProxyXA proxy = proxies.get(i);
            try (Connection c = proxy.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement st = c.prepareStatement("INSERT INTO " + s.table() + " (id, amount, note) VALUES (?, 100, 'xa')")) {
                    st.setLong(1, s.id());
                    st.executeUpdate();
                }
                // Phase one: XA END and XA PREPARE of this branch.
                c.commit();
            }
        }
        for (int i = 0; i < proxies.size(); i++) {
            String db = s.databases.get(i);
            for (Xid x : recover(db)) {
                String gtrid = new String(x.getGlobalTransactionId(), StandardCharsets.UTF_8);
                if (!gtrid.equals(xid)) {
                    continue;
                }
                String bqual = new String(x.getBranchQualifier(), StandardCharsets.UTF_8);
                HexFormat hex = HexFormat.of();
                say("xa-prepared db=" + kind(db) + " format=" + x.getFormatId() + " gtrid=" + gtrid + " bqual=" + bqual
                    + " gtrid_hex=" + hex.formatHex(x.getGlobalTransactionId())
                    + " bqual_hex=" + hex.formatHex(x.getBranchQualifier()));
                say("branch xid=" + xid + " branch_id=" + bqual.replaceFirst("^-", "") + " type=XA resource="
                    + proxies.get(i).getResourceId() + " db=" + kind(db) + " table=" + s.table() + " pk=" + s.id());
            }
        }
        if (halt.equals("prepared")) {
            halt("after phase one of every XA branch, before the TM's commit or rollback");
        }
        finish(tx, true);
    }

    /** Seata's XA resource manager, halting the JVM when a branch's commit reaches it. */
    static final class HaltingResourceManagerXA extends ResourceManagerXA {
        @Override
        public BranchStatus branchCommit(BranchType branchType, String xid, long branchId, String resourceId,
                                         String applicationData) {
            say("branch-commit-received xid=" + xid + " branch_id=" + branchId + " resource=" + resourceId);
            halt("in the first XA branch's commit, after the coordinator decided commit");
            return BranchStatus.PhaseTwo_CommitFailed_Retryable;
        }
    }

    /** The XIDs prepared in a database, through its driver's XAResource.recover. */
    private static List<Xid> recover(String url) throws SQLException, javax.transaction.xa.XAException {
        XAConnection xc;
        if (url.startsWith("jdbc:postgresql:")) {
            PGXADataSource ds = new PGXADataSource();
            ds.setUrl(url);
            xc = ds.getXAConnection();
        } else {
            xc = new MariaDbDataSource(url).getXAConnection();
        }
        try {
            return List.of(xc.getXAResource().recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN));
        } finally {
            xc.close();
        }
    }

    // ---------------------------------------------------------------- common

    /** Ends a global transaction from its TM and prints what the coordinator answered. */
    private static void finish(GlobalTransaction tx, boolean commit) {
        String xid = tx.getXid();
        String what = commit ? "commit" : "rollback";
        try {
            if (commit) {
                tx.commit();
            } else {
                tx.rollback();
            }
            GlobalStatus status = tx.getLocalStatus();
            say(what + " xid=" + xid + " status=" + status.name() + " code=" + status.getCode());
        } catch (TransactionException | RuntimeException e) {
            say(what + " xid=" + xid + " status=error error=" + e.getClass().getName()
                + " message=" + oneLine(e.getMessage()));
        }
    }

    /** Keeps the process up (its RM answering the coordinator's retries) for serve_ms. */
    /** Whether the coordinator has ended this global: Finished, Committed or Rollbacked. */
    private static boolean ended(String xid) {
        try {
            GlobalStatus status = GlobalTransactionContext.reload(xid).getStatus();
            return status == GlobalStatus.Finished || status == GlobalStatus.Committed
                || status == GlobalStatus.Rollbacked;
        } catch (TransactionException e) {
            return false;
        }
    }

    private static void serve(Settings s) throws InterruptedException {
        say("serving ms=" + s.serveMillis);
        Thread.sleep(s.serveMillis);
    }

    static DataSource dataSource(String url) throws SQLException {
        if (url.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(url);
            return ds;
        }
        if (url.startsWith("jdbc:mariadb:")) {
            return new MariaDbDataSource(url);
        }
        throw new IllegalArgumentException("db= must be a jdbc:postgresql: or jdbc:mariadb: URL: " + url);
    }

    private static String kind(String url) {
        return url.startsWith("jdbc:postgresql:") ? "pg" : "mariadb";
    }

    /** Seata's client tables (sql/client-*.sql), then the business table and its row. */
    private static void prepareBusiness(DataSource raw, String url, Settings s, boolean withRow) throws Exception {
        runScript(raw, url);
        String t = s.table();
        execute(raw, "CREATE TABLE IF NOT EXISTS " + t
            + " (id bigint PRIMARY KEY, amount integer NOT NULL, note varchar(64) NOT NULL)");
        try (Connection c = raw.getConnection();
             PreparedStatement st = c.prepareStatement("SELECT count(*) FROM " + t + " WHERE id = ?")) {
            st.setLong(1, s.id());
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                if (rs.getLong(1) > 0) {
                    System.err.println("stuck: row id " + s.id() + " exists in " + t + ": give an id of its own");
                    System.exit(2);
                }
            }
        }
        if (withRow) {
            execute(raw, "INSERT INTO " + t + " (id, amount, note) VALUES (" + s.id() + ", 100, 'before')");
            printRow(raw, t, s.id());
        }
    }

    private static void runScript(DataSource raw, String url) throws SQLException, IOException {
        String name = "/indoubt/lab/seata/sql/client-" + (url.startsWith("jdbc:postgresql:") ? "postgresql" : "mariadb") + ".sql";
        String script;
        try (InputStream in = Stuck.class.getResourceAsStream(name)) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder sql = new StringBuilder();
        for (String line : script.split("\n")) {
            String code = line.replaceFirst("--.*$", "");
            sql.append(code).append('\n');
            if (code.trim().endsWith(";")) {
                String statement = sql.toString().trim();
                execute(raw, statement.substring(0, statement.length() - 1));
                sql.setLength(0);
            }
        }
    }

    static void execute(DataSource raw, String sql) throws SQLException {
        try (Connection c = raw.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static void printRow(DataSource raw, String table, long id) throws SQLException {
        try (Connection c = raw.getConnection();
             PreparedStatement st = c.prepareStatement("SELECT amount, note FROM " + table + " WHERE id = ?")) {
            st.setLong(1, id);
            try (ResultSet rs = st.executeQuery()) {
                if (rs.next()) {
                    say("row table=" + table + " pk=" + id + " amount=" + rs.getInt(1) + " note=" + rs.getString(2));
                } else {
                    say("row table=" + table + " pk=" + id + " absent");
                }
            }
        }
    }

    private static void printFence(DataSource raw, String xid) throws SQLException {
        try (Connection c = raw.getConnection();
             PreparedStatement st = c.prepareStatement("SELECT branch_id, action_name, status FROM tcc_fence_log WHERE xid = ?")) {
            st.setString(1, xid);
            try (ResultSet rs = st.executeQuery()) {
                boolean any = false;
                while (rs.next()) {
                    any = true;
                    say("fence xid=" + xid + " branch_id=" + rs.getLong(1) + " action=" + rs.getString(2) + " status=" + rs.getInt(3));
                }
                if (!any) {
                    say("fence xid=" + xid + " status=none");
                }
            }
        }
    }

    private static void printSaga(DataSource raw, String key) throws SQLException {
        try (Connection c = raw.getConnection();
             PreparedStatement st = c.prepareStatement(
                 "SELECT i.id, d.name, i.status, i.compensation_status, i.is_running FROM seata_state_machine_inst i"
                     + " JOIN seata_state_machine_def d ON d.id = i.machine_id WHERE i.business_key = ?")) {
            st.setString(1, key);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    String id = rs.getString(1);
                    say("saga-instance xid=" + id + " id=" + id + " machine=" + rs.getString(2) + " business_key=" + key
                        + " status=" + rs.getString(3) + " compensation_status=" + rs.getString(4)
                        + " is_running=" + rs.getBoolean(5));
                    try (PreparedStatement states = c.prepareStatement(
                        "SELECT id, name, status, state_id_compensated_for FROM seata_state_inst WHERE machine_inst_id = ? ORDER BY gmt_started, id")) {
                        states.setString(1, id);
                        try (ResultSet srs = states.executeQuery()) {
                            while (srs.next()) {
                                say("saga-state-row id=" + srs.getString(1) + " name=" + srs.getString(2)
                                    + " status=" + srs.getString(3) + " compensated_for=" + srs.getString(4));
                            }
                        }
                    }
                }
            }
        }
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").trim();
    }

    /** The command line, read once. */
    static final class Settings {
        final Map<String, List<String>> opts = new LinkedHashMap<>();
        final String tc;
        final String app;
        final String group;
        final int timeoutMillis;
        final long serveMillis;
        final List<String> databases;

        Settings(String[] args) {
            for (int i = 1; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("not key=value: " + args[i]);
                }
                opts.computeIfAbsent(args[i].substring(0, eq), k -> new ArrayList<>()).add(args[i].substring(eq + 1));
            }
            tc = one("tc", null);
            app = one("app", "indoubt-lab");
            group = one("group", "indoubt-lab-group");
            timeoutMillis = Integer.parseInt(one("timeout_ms", "60000"));
            serveMillis = Long.parseLong(one("serve_ms", "3000"));
            databases = opts.getOrDefault("db", List.of());
            if (!tc.matches("[A-Za-z0-9.:-]+:[0-9]+")) {
                throw new IllegalArgumentException("tc must be HOST:PORT");
            }
            if (app.length() > 32 || !app.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("app must be a plain name of at most 32 characters");
            }
        }

        String db() {
            if (databases.size() != 1) {
                throw new IllegalArgumentException("give one db=");
            }
            return databases.get(0);
        }

        String table() {
            String t = one("table", null);
            if (!t.matches("[A-Za-z_][A-Za-z0-9_]{0,31}")) {
                throw new IllegalArgumentException("table must be a plain name of at most 32 characters");
            }
            return t;
        }

        long id() {
            return Long.parseLong(one("id", null));
        }

        String businessKey() {
            String k = one("business_key", null);
            if (k.length() > 48 || !k.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("business_key must be a plain name of at most 48 characters");
            }
            return k;
        }

        /** The halt= argument: one of the choices, the first by default. */
        String halt(String... choices) {
            String h = one("halt", choices[0]);
            if (!List.of(choices).contains(h)) {
                throw new IllegalArgumentException("halt must be one of " + String.join(", ", choices));
            }
            return h;
        }

        String opt(String key, String fallback) {
            return one(key, fallback);
        }

        private String one(String key, String fallback) {
            List<String> v = opts.get(key);
            if (v == null || v.isEmpty()) {
                if (fallback == null) {
                    throw new IllegalArgumentException("missing " + key + "=");
                }
                return fallback;
            }
            return v.get(v.size() - 1);
        }
    }
}
