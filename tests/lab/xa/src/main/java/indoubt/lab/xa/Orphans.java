package indoubt.lab.xa;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import javax.sql.ConnectionEventListener;
import javax.sql.StatementEventListener;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * Makes genuine in-doubt transactions with a real transaction manager, for indoubt's tests.
 *
 * <pre>
 *   Orphans orphan  tm=narayana|atomikos halt=prepare|commit|none [slow_prepare_ms=N]
 *                   db=JDBC_URL db=JDBC_URL table=NAME [id=N] [marker=TEXT] dir=DIR node=NAME
 *                   [store=file|jdbc store_url=JDBC_URL store_user=U store_password=P]
 *   Orphans recover (the same tm, dir, node, store, db arguments)
 * </pre>
 *
 * Each {@code db} is a PostgreSQL database
 * ({@code jdbc:postgresql://HOST:PORT/DB?user=U&password=P}, through pgjdbc's
 * PGXADataSource) or a MariaDB/MySQL one
 * ({@code jdbc:mariadb://HOST:PORT/DB?user=U&password=P}, through MariaDB Connector/J's
 * MariaDbDataSource, without TLS unless the URL gives an sslMode); one transaction may
 * span both kinds.
 *
 * One global transaction inserts a row into {@code table} of every {@code db}: the one
 * value {@code 'marker'} (a table of one text column), or with {@code id=N} the two values
 * {@code (N, 'marker')} (an id column, then a text one). Then a last, dummy resource is
 * enlisted. {@code halt=prepare} halts the JVM in the dummy's prepare: every database
 * branch is prepared and no decision is logged.
 * {@code halt=commit} halts in the first database branch's commit: the decision
 * (COMMITTING) is logged and every branch is still prepared. {@code halt=none} commits;
 * with {@code slow_prepare_ms} the dummy's prepare takes that long first, so the branches
 * stay prepared under a live coordinator that has not decided yet.
 *
 * Each branch's XID is printed as {@code branch format=N gtrid=HEX bqual=HEX} when it
 * starts, and {@code prepared} once every database branch is prepared, so a test can
 * wait for that line. {@code recover} runs the TM's own recovery against the same log
 * and databases and prints {@code recovered} when it has finished.
 */
public final class Orphans {
    private static final PrintStream OUT = System.out;

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: Orphans orphan|recover key=value...");
        }
        Map<String, List<String>> opts = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("not key=value: " + args[i]);
            }
            opts.computeIfAbsent(args[i].substring(0, eq), k -> new ArrayList<>())
                .add(args[i].substring(eq + 1));
        }
        Settings s = new Settings(opts);
        TransactionManagers.Driver tm = TransactionManagers.of(s);
        switch (args[0]) {
            case "orphan" -> orphan(s, tm);
            case "recover" -> {
                tm.recover();
                say("recovered");
                System.exit(0);
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void orphan(Settings s, TransactionManagers.Driver tm) throws Exception {
        tm.begin();
        // Plain SQL both engines read alike (no identifier quoting; the names are checked).
        String values = s.id == null ? "('" + s.marker + "')" : "(" + s.id + ", '" + s.marker + "')";
        for (int i = 0; i < s.databases.size(); i++) {
            try (Connection c = tm.enlisted(i); Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO " + s.table + " VALUES " + values);
            }
        }
        tm.enlist(new Dummy(s));
        tm.commit();
        say("committed");
        System.exit(0);
    }

    /** The XA data source of a {@code db=} URL: pgjdbc's or MariaDB Connector/J's. */
    static XADataSource dataSource(String url, Settings s) throws SQLException {
        if (url.startsWith("jdbc:postgresql:")) {
            PGXADataSource ds = new PGXADataSource();
            ds.setUrl(url);
            return new Halting(ds, s);
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            String u = url;
            // Connector/J reads jdbc:mysql: URLs only with permitMysqlScheme.
            if (u.startsWith("jdbc:mysql:")) {
                u += (u.contains("?") ? "&" : "?") + "permitMysqlScheme=true";
            }
            // Connector/J 4 asks for TLS unless told otherwise; the lab's server has none.
            if (!u.contains("sslMode=")) {
                u += (u.contains("?") ? "&" : "?") + "sslMode=disable";
            }
            return new Halting(new MariaDbDataSource(u), s);
        }
        throw new IllegalArgumentException("db= must be a jdbc:postgresql: or jdbc:mariadb: URL: " + url);
    }

    static void say(String line) {
        OUT.println(line);
        OUT.flush();
    }

    static void halt(String why) {
        say("halting: " + why);
        Runtime.getRuntime().halt(1);
    }

    /** The command line, read once. */
    static final class Settings {
        final String tm;
        final String halt;
        final long slowPrepareMillis;
        final List<String> databases;
        final String table;
        final String id;
        final String marker;
        final String dir;
        final String node;
        final String store;
        final String storeUrl;
        final String storeUser;
        final String storePassword;

        Settings(Map<String, List<String>> o) {
            tm = one(o, "tm", null);
            halt = one(o, "halt", "none");
            slowPrepareMillis = Long.parseLong(one(o, "slow_prepare_ms", "0"));
            databases = o.getOrDefault("db", List.of());
            table = one(o, "table", "orphans");
            id = o.containsKey("id") ? one(o, "id", null) : null;
            marker = one(o, "marker", "m");
            dir = one(o, "dir", null);
            node = one(o, "node", "indoubt-lab");
            store = one(o, "store", "file");
            storeUrl = one(o, "store_url", "");
            storeUser = one(o, "store_user", "");
            storePassword = one(o, "store_password", "");
            if (!List.of("prepare", "commit", "none").contains(halt)) {
                throw new IllegalArgumentException("halt must be prepare, commit or none");
            }
            if (!table.matches("[A-Za-z_][A-Za-z0-9_]*") || !marker.matches("[A-Za-z0-9_-]*")) {
                throw new IllegalArgumentException("table and marker must be plain names");
            }
            if (id != null && !id.matches("-?[0-9]{1,18}")) {
                throw new IllegalArgumentException("id must be an integer");
            }
        }

        private static String one(Map<String, List<String>> o, String key, String fallback) {
            List<String> v = o.get(key);
            if (v == null || v.isEmpty()) {
                if (fallback == null) {
                    throw new IllegalArgumentException("missing " + key + "=");
                }
                return fallback;
            }
            return v.get(v.size() - 1);
        }
    }

    /**
     * The third resource, enlisted last: where the JVM halts before any decision.
     * Serializable so Narayana logs it whole and its recovery can finish it too.
     */
    static final class Dummy implements XAResource, java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final transient Settings s;

        Dummy(Settings s) {
            this.s = s;
        }

        @Override
        public int prepare(Xid xid) {
            say("prepared");
            if (s == null) {
                return XA_OK;
            }
            if (s.halt.equals("prepare")) {
                halt("in the dummy resource's prepare, before the decision");
            }
            if (s.slowPrepareMillis > 0) {
                try {
                    Thread.sleep(s.slowPrepareMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return XA_OK;
        }

        @Override public void commit(Xid xid, boolean onePhase) { }
        @Override public void rollback(Xid xid) { }
        @Override public void start(Xid xid, int flags) { }
        @Override public void end(Xid xid, int flags) { }
        @Override public void forget(Xid xid) { }
        @Override public int getTransactionTimeout() { return 0; }
        @Override public boolean setTransactionTimeout(int seconds) { return true; }
        @Override public Xid[] recover(int flag) { return new Xid[0]; }

        @Override
        public boolean isSameRM(XAResource other) {
            return other == this;
        }
    }

    /** An XA data source whose resources print their XIDs and can halt in the first commit. */
    static final class Halting implements XADataSource {
        private static volatile boolean firstCommitSeen;
        private final XADataSource inner;
        private final Settings s;

        Halting(XADataSource inner, Settings s) {
            this.inner = inner;
            this.s = s;
        }

        @Override
        public XAConnection getXAConnection() throws SQLException {
            return wrap(inner.getXAConnection());
        }

        @Override
        public XAConnection getXAConnection(String user, String password) throws SQLException {
            return wrap(inner.getXAConnection(user, password));
        }

        private XAConnection wrap(XAConnection c) {
            return new XAConnection() {
                @Override public XAResource getXAResource() throws SQLException {
                    return new HaltingResource(c.getXAResource(), s);
                }
                @Override public Connection getConnection() throws SQLException { return c.getConnection(); }
                @Override public void close() throws SQLException { c.close(); }
                @Override public void addConnectionEventListener(ConnectionEventListener l) { c.addConnectionEventListener(l); }
                @Override public void removeConnectionEventListener(ConnectionEventListener l) { c.removeConnectionEventListener(l); }
                @Override public void addStatementEventListener(StatementEventListener l) { c.addStatementEventListener(l); }
                @Override public void removeStatementEventListener(StatementEventListener l) { c.removeStatementEventListener(l); }
            };
        }

        @Override public PrintWriter getLogWriter() throws SQLException { return inner.getLogWriter(); }
        @Override public void setLogWriter(PrintWriter out) throws SQLException { inner.setLogWriter(out); }
        @Override public void setLoginTimeout(int seconds) throws SQLException { inner.setLoginTimeout(seconds); }
        @Override public int getLoginTimeout() throws SQLException { return inner.getLoginTimeout(); }
        @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { return inner.getParentLogger(); }

        /** Delegates everything; prints each branch's XID; halts in the first commit when asked. */
        static final class HaltingResource implements XAResource {
            private final XAResource inner;
            private final Settings s;

            HaltingResource(XAResource inner, Settings s) {
                this.inner = inner;
                this.s = s;
            }

            @Override
            public void start(Xid xid, int flags) throws XAException {
                HexFormat hex = HexFormat.of();
                say("branch format=" + xid.getFormatId()
                    + " gtrid=" + hex.formatHex(xid.getGlobalTransactionId())
                    + " bqual=" + hex.formatHex(xid.getBranchQualifier()));
                inner.start(xid, flags);
            }

            @Override
            public void commit(Xid xid, boolean onePhase) throws XAException {
                if (s.halt.equals("commit") && !firstCommitSeen) {
                    firstCommitSeen = true;
                    halt("in the first branch's commit, after the decision was logged");
                }
                inner.commit(xid, onePhase);
            }

            @Override public int prepare(Xid xid) throws XAException { return inner.prepare(xid); }
            @Override public void end(Xid xid, int flags) throws XAException { inner.end(xid, flags); }
            @Override public void rollback(Xid xid) throws XAException { inner.rollback(xid); }
            @Override public void forget(Xid xid) throws XAException { inner.forget(xid); }
            @Override public Xid[] recover(int flag) throws XAException { return inner.recover(flag); }
            @Override public int getTransactionTimeout() throws XAException { return inner.getTransactionTimeout(); }
            @Override public boolean setTransactionTimeout(int seconds) throws XAException { return inner.setTransactionTimeout(seconds); }

            @Override
            public boolean isSameRM(XAResource other) throws XAException {
                XAResource o = other instanceof HaltingResource h ? h.inner : other;
                return inner.isSameRM(o);
            }
        }
    }

}
