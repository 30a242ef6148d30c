/* test_cluster_slot.c - unit tests for cluster_slot.c: key hash slots
 * against Debian's redis-server 7.0 (the cluster spec's examples and 283
 * random keys with and without hash tags, binary bytes included), the
 * slots a glob pattern can match (patternHashSlot) and the slot bitmap
 * helpers.
 *
 * The table below is the output of
 *     utils/cluster-capture.d/keyslots.tcl PORT 300 16384
 * against `redis-server --cluster-enabled yes` (7.0.15): each row is a key,
 * its length and the slot CLUSTER KEYSLOT answered. */
#include <stdlib.h>
#include <string.h>

#include "cluster_slot.h"
#include "crc16.h"
#include "unittest.h"

typedef struct keySlotCase {
    const char *key;
    size_t len;
    unsigned int slot;
} keySlotCase;

static const keySlotCase redisKeySlots[] = {
    {"", 0, 0},
    {"123456789", 9, 12739},
    {"foo", 3, 12182},
    {"{user1000}.following", 20, 3443},
    {"{user1000}.followers", 20, 3443},
    {"foo{}{bar}", 10, 8363},
    {"foo{{bar}}zap", 13, 4015},
    {"foo{bar}{zap}", 13, 5061},
    {"{}key", 5, 14961},
    {"{", 1, 4092},
    {"}", 1, 12090},
    {"{}", 2, 15257},
    {"{a", 2, 10276},
    {"a}", 2, 5921},
    {"}{a}", 4, 15495},
    {"\000", 1, 0},
    {"\000{\000}", 4, 0},
    {"82PLL-h9g\313", 10, 9428},
    {"0ZWc}k({h\3739c*lfd}G", 18, 7156},
    {"-$JlOXAbT\365{TEkz2yNv5zY}RD\241MLS", 29, 8204},
    {"2kxJ3Fgn0{_D", 12, 12246},
    {"user:31519", 10, 5262},
    {"{u5}:Pd7SK\346\273{NGGY\2410IMS2}", 24, 4442},
    {"O-D", 3, 2406},
    {"6{jkIETn\025{}4B\"7Wje\222YT", 21, 14566},
    {"user:18055", 10, 1474},
    {"&KTtC{}C{a{gF0", 14, 11326},
    {"m{5S76Cx", 8, 11838},
    {"nasF{}5Aq", 9, 3775},
    {"Yug\365H{2g.nGZ0}\341of", 17, 7609},
    {"7JxeeE_S8\344A{{Nb_Wc5U}", 21, 15177},
    {"user:38757", 10, 9363},
    {"\205PC", 3, 9906},
    {"{LBkszr.Dqgk}bW-CXIX{RnV\22183b-eG}", 32, 9633},
    {"{t\315GWQD{jQ", 10, 12219},
    {"user:46882", 10, 11221},
    {"{lAPhvJG}S{Z}", 13, 14190},
    {"{73Ng}.{Gh\375oak}", 15, 5043},
    {"user:72890", 10, 7301},
    {"3{HivziAKi", 10, 15420},
    {"{b0{\321}}A_A{H5t}", 15, 16096},
    {"Q7nu*gxOLoz{}q4s", 16, 539},
    {"{SPs-dU\372kd}{f\011z}", 16, 2922},
    {"user:58108", 10, 5548},
    {"Ht7Zp{IR8{Z}NOY\0059}G1fRtM", 24, 8799},
    {"{9E}41{4W}", 10, 10092},
    {"_.I{jxL", 7, 9401},
    {"WCC\216alD{O\212aOp\2126dD}jiu:A\367", 24, 8102},
    {"LHaWgjd\355{}YwVMx", 15, 7711},
    {"{a4AoMwK}Rk}\224_{1N2:K}", 21, 9166},
    {"3", 1, 1584},
    {"user:16753", 10, 718},
    {"nTxXtTUX61N{UN6P", 16, 13867},
    {"Ld{Dxv-WS", 9, 2189},
    {"user:57336", 10, 7103},
    {"{TIjXWmbg}0y-\241M{{NI\232R5vwP:\243}", 28, 12297},
    {"i}xg", 4, 11597},
    {"Xd", 2, 11060},
    {"{_gUPDeB-R}\312f{PyCe3-5m}", 23, 14670},
    {"hwdXDm{o{r5\250Ifp3qz{}uXpe:", 25, 4655},
    {"user:54575", 10, 3684},
    {"QAlceLPq{}eDV}qxO\273", 18, 13534},
    {"7\354XQRd", 6, 2579},
    {"{t0:ipBHG}k{a6_3o}1{mK\262\271fezB#}", 30, 13116},
    {"{K}kFEkNw59", 11, 14767},
    {"c{Lh\340:P6.24{T}lUZ_Ogs9v", 23, 16295},
    {"user:32461", 10, 8445},
    {"2{z*pKW\256}1zBx", 13, 8609},
    {"dYtRAx6Hjf0{Ni0Bc", 17, 7485},
    {"u3S\21113:", 7, 15439},
    {"q\214a{Hhi6DSum}mHB", 16, 14200},
    {"qJVq{o\211}N7YhHDX{", 16, 7093},
    {"gv{6c8OjS{0", 11, 11147},
    {"mzP{i\352w9fRz\254", 12, 7656},
    {"r{99Q:}D3s8iD-zpQm", 18, 11837},
    {"user:17915", 10, 889},
    {"R3BtUN_{}m6", 11, 12104},
    {"{Y_V}{}Ny{{}", 12, 9453},
    {"}4{}aPEfsxzH5tT", 15, 6324},
    {"DAr{}\3401I", 8, 5918},
    {"D:v9\374U", 6, 1237},
    {"tc6v\030G{", 7, 445},
    {"\303n\326(\206BTh{-WwahI", 15, 15631},
    {"{f{TW}I\346Nc{Q.NnWBpgk1Z}", 23, 16091},
    {"{VQXx\210{0\260R}N9DJ}yxz\2474{c{JD\344lVq}", 31, 13940},
    {"yDx{\345{pkK}FtWupz", 16, 12870},
    {"9awD{}Y{A7.}CBNDj", 17, 12042},
    {"}j}Hz7CRrm{WXZ}EC::xnZJ", 23, 10231},
    {"abD", 3, 2387},
    {"ofETn{}wLbBk", 12, 4182},
    {"{0\3272TXIB\250a", 10, 16328},
    {"XRx{i\206sI3aF{]NSyXU8}Wz\345B", 24, 6182},
    {":3.lImIr\350AW", 11, 1447},
    {"{\033Bz1:o\241{B}{O\304}", 15, 709},
    {"\230q{qqeCD\213Lkp}1SCHIu}", 20, 936},
    {"user:68419", 10, 13214},
    {"=yln{h52}looI{zY\235P\222", 19, 7867},
    {"{dB.bQkB{oYC}gPqT\0048{R}Kb\232}", 26, 14842},
    {"JcTDScUg5.l", 11, 11940},
    {"sXNl9'vs9\233", 10, 9027},
    {"{NX}sL\\\236QjA0vP", 14, 13630},
    {"DVWxDeiP{}zfyURI}", 17, 15279},
    {"\037KMT{la:", 8, 6064},
    {"6H{K{o0\0047VW\242kI}~JT{hn", 21, 7010},
    {"{qMz5s29_Uhm}r2B{gcT8aY}", 24, 9221},
    {"", 0, 0},
    {"{e\203bR5Ng}\322{A\305bM.C}", 18, 2470},
    {"KwknCisG}AF{}0wwd", 17, 14119},
    {"NWp9l1Q", 7, 2003},
    {"eVDl.J{1hWHm~ZYwX", 17, 9469},
    {".cGaqEoB5H{YuyW", 15, 9844},
    {"\351ou0hmY6F{rk}", 13, 13302},
    {"i2V2cw{MA}", 10, 9077},
    {"{KrlE{\370}QEv'EU{XN}", 18, 10942},
    {"user:74565", 10, 14806},
    {"{U4hWA\3456{HdRz3}6obe&", 20, 3416},
    {"OS.{ScHq}6fSzu}DLBW", 19, 1551},
    {"{nem8DmKD\2728i}iT3\317bl_X{tH}", 25, 5796},
    {"user:92560", 10, 322},
    {"\022BnKgvM{h3wqsSDI", 16, 1753},
    {"Scx{}0D{\217VX\252wZ", 14, 6659},
    {"p{RxHjauwK", 10, 12080},
    {"Uy}a3YX8:mw{}O8", 15, 16380},
    {"{9\005mWXe7:xtN}OE{q{8}", 20, 15359},
    {"8Rb48{Yq{51E", 12, 2656},
    {"user:95296", 10, 9479},
    {"{vM}Y7Ygyj{Pa7YLUh}", 19, 15254},
    {"FO:y0d{4\351qAUG7b{QU", 18, 9639},
    {"user:44205", 10, 14386},
    {"jR329(Xn{:9NAK{sU{", 18, 1113},
    {"4}cT1lQ{1{zVu9:mO}TbUpu4ajxJ8", 29, 5294},
    {"user:8930", 9, 16068},
    {"user:56805", 10, 14538},
    {"{CJelG2GXD9}S86\351{T9{21w\350Zpl}", 28, 4979},
    {"{Sahpx}pqjZj{o92h9LVsF}", 23, 4490},
    {"user:29504", 10, 6528},
    {"S:{s", 4, 14036},
    {"Irimm{l6qJgXgx{}QgAW2.xSy", 25, 1335},
    {"F{}", 3, 5268},
    {"{}{.F\340ytRLifZ}", 14, 6519},
    {"o;CfX:sKc}{\214X.\3058:bWf}I:91v:", 27, 6801},
    {"Tuz}rc5\225gu{_{.Zi}mvNNyRn454", 27, 11677},
    {"\024j{}YR:IbLkS", 12, 11848},
    {"{l}n{0qLacXYK}", 14, 11562},
    {"6RdG\333\211{OI\351eu0G3Vb\232", 18, 3388},
    {"K\340aC4Jv0c{v2Vx9PpUZ", 19, 14712},
    {"PdrGw\361{}", 8, 15739},
    {"4d-lb5EcxC", 10, 14925},
    {"49Z5{1}.FD_L", 12, 9842},
    {"{VER6}\232Y", 8, 6839},
    {"I;", 2, 12396},
    {"Qfk5BN4S", 8, 2836},
    {"user:6414", 9, 14377},
    {"BExV2", 5, 1171},
    {"user:77974", 10, 13435},
    {"b", 1, 3300},
    {"T-O\261Wvi\347{Q3-nL6V15.P", 20, 972},
    {"user:6277", 9, 4172},
    {"ISWA{mTJ", 8, 12421},
    {"}mdg_W\206Zc", 9, 11047},
    {"O{qdv{}Bfy7033UD", 16, 7785},
    {"e4", 2, 520},
    {"{g}O6NIo{3H}", 12, 7233},
    {"{}NKJ\0105O_:", 10, 10616},
    {"jVpr:G{Aj2R.vWZS}", 17, 6344},
    {"user:56786", 10, 11569},
    {":9b0l", 5, 2154},
    {"_n5_R}4n8x{Ih9uCzI", 18, 215},
    {"{}'6nD{", 7, 11807},
    {"B6AJn{}6T-tozV7", 15, 14035},
    {"\321Q{1N9t7JYMG", 12, 1565},
    {"user:71992", 10, 4139},
    {"4Lgwq6EVe{N\315}7Zmn", 17, 9762},
    {"L{}\2513j", 6, 5470},
    {"{I6XH4", 6, 12679},
    {"DF6Sk{pygvaXK\237w", 15, 4852},
    {"user:15055", 10, 15428},
    {"{Tv\243o}6rIJy\240)0w{kBZp0}", 22, 6},
    {"user:57376", 10, 6011},
    {"f\270D{}E.KhZLXk\3166}l", 17, 3543},
    {"h3_O\227A{2m_}E", 12, 15785},
    {"user:45744", 10, 14739},
    {"V{\375}:\3407MVi:YR}l.XGYExr", 22, 16050},
    {"ItC0T9FlJ{2l}L", 14, 3805},
    {"O-{d\257CZ2{7tO09Gq9{m_", 20, 8857},
    {"2{31DO3Wv", 9, 2165},
    {"2WnN{}Eu.BnH6g", 14, 4540},
    {"LHYk\3013Yj\250", 9, 8610},
    {"Egm\207U\265{}DU", 10, 8978},
    {"n{pp\206gaHp}DxG", 13, 12542},
    {"user:45707", 10, 1332},
    {"3\"nr4}t", 7, 8029},
    {"{9{", 3, 6152},
    {"user:36780", 10, 114},
    {"eHDtc{zmQdFu\341f", 14, 1623},
    {"user:48673", 10, 4753},
    {"}_}j{}", 6, 10196},
    {"{}{:v5r.gl}", 11, 13506},
    {"{}eQ-thTl", 9, 2640},
    {"_9n", 3, 154},
    {"wDk`.ra7w{B}PL\304XeaS-", 20, 10374},
    {"BtooltmF\343Wo", 11, 566},
    {"user:71192", 10, 14730},
    {"b{2Os{}r\010-nIE:", 14, 8939},
    {"WT_c6Ob", 7, 4400},
    {".ph9z{tek{}g8oOb", 16, 8243},
    {"{}6kElBRng6{L16E\241zu}", 20, 11554},
    {"kZqx{:}=:p_Mq", 13, 5913},
    {"8Oqns}{XMz9{}5-GMYMv.v^n", 24, 12093},
    {"eygWUN{}WKKfle", 14, 12971},
    {"{uKuf:\223ML{-}IKRx{E5dEt}", 23, 4978},
    {"user:14240", 10, 1796},
    {"{{bW_U3}3k{V}x5.\261{xm0-Mz5Kc|a}", 30, 15090},
    {"user:9941", 9, 454},
    {"user:9476", 9, 9763},
    {"{2zYB\352_I{", 9, 6846},
    {"aZ6", 3, 7098},
    {"LGEvxnj\277", 8, 12244},
    {"siCzy3u8Wk", 10, 10926},
    {"h\302{M15sC{nMsU", 13, 15657},
    {"jGG{Aah", 7, 14331},
    {"PN{}qN", 6, 14853},
    {"\256D_K7vR8.4{9.haTas{e3", 21, 11470},
    {"aRf\372B94bJm{K1OYOBu}v", 20, 14898},
    {"{J\247x{CIT}uHaz PBte{{}", 21, 11730},
    {"PgJy-mLtv{}qNINi", 16, 14954},
    {"{}m0Dxv.T\252x", 11, 2129},
    {"{j3}nX}jkiW}FlEJ{yeQo}", 22, 8913},
    {"toTFP\210{}Gku96", 13, 1364},
    {"js", 2, 10773},
    {"yZ\304{}6BHZ", 9, 14697},
    {"{zec-5}J}\251wb\2159{bSW{\033}", 21, 10952},
    {"user:8376", 9, 5383},
    {"user:60531", 10, 9735},
    {"}B{}f17.Bl0eE-", 14, 5563},
    {"e{}", 3, 2818},
    {"bpKvjO}\3334Cf{Llq5", 16, 11367},
    {"{p\022ik7_}V{", 10, 13154},
    {"6ivcQ{}Jr\177", 10, 15123},
    {"zTJXCh3", 7, 9834},
    {"FS{}", 4, 13570},
    {"oV\257lyQ{c", 8, 14734},
    {"3mw{Zy\022kx71tFmF}", 16, 919},
    {"user:44873", 10, 1698},
    {"user:20685", 10, 10799},
    {"vTqwwq{M7:D=GA1G", 16, 3352},
    {"{}t2ny1Cer7{}", 13, 9471},
    {".L", 2, 11425},
    {"{P6g{LHdiDuXrw\374R}_X", 19, 16363},
    {"5Klj|\310\367{P0Wo{\225XX}6nlBa{rUx-r", 28, 1361},
    {"user:3780", 9, 10016},
    {"{z}ge>d\302y7v/{}", 14, 8157},
    {"user:39766", 10, 5973},
    {"{\307bWnveTmx}#\251{}", 15, 2757},
    {"zo{3N\336PDlsG}uvx6\340i1DUt", 22, 16294},
    {"user:95600", 10, 9113},
    {"R4{}788\211}q", 10, 11647},
    {"{%}[JYGAHo}}dq4_n6H{C}", 22, 13511},
    {"user:69231", 10, 4320},
    {"\022{{", 3, 13916},
    {"Vf4jjKL", 7, 10510},
    {"user:9490", 9, 9706},
    {"0", 1, 13907},
    {"OK", 2, 9309},
    {"8Kr{F0534}s7eZ", 14, 14400},
    {"user:53082", 10, 5216},
    {"\374{}McNI8X", 9, 8919},
    {"Mo_CX{}_TlZ5}l", 14, 13503},
    {"c81fzWSA", 8, 785},
    {"Q\214{nJhw{L-.KWQ", 14, 10494},
    {"{7GuOilY}a{}", 12, 9818},
    {"{\273\305u}{{{}", 9, 2461},
    {"{nRp{h6}7S{gaEmfh}", 18, 12432},
    {"9foCLkj{}\0079:LWR", 15, 15421},
    {"cj", 2, 5013},
    {"{{\273Eweausb6s", 12, 13818},
    {"user:85712", 10, 11659},
    {"VLL\024lhlYIWv{Jm", 14, 8100},
    {"BDiBKqH.{Rl\325fvpk}W}oGr", 22, 2893},
    {"SGq6", 4, 6951},
    {"LUWO67mCR{abqGf", 15, 11938},
    {"fWzUmi{h19KIi4}nW}TB_mrK", 24, 6867},
    {"{Xl\326}{K67yq\277a}", 14, 4755},
    {"w\30476iz{{}n99\272e\035LVL7K", 20, 4092},
    {"YMp", 3, 1368},
    {"}s{{}C15${2L-", 13, 4092},
    {"\077lue\203y}CO{u", 11, 15800},
    {"user:3068", 9, 183},
    {"y\3658_d{5F{3\340.lOi", 15, 14355},
    {"{S8{g\301nZ9O}}{7Xhg}", 18, 7226},
    {"0Z{", 3, 11053},
    {"3\305", 2, 6447},
    {"user:79618", 10, 4410},
    {"\245\005f}wNz{}lH", 11, 365},
    {"{qqdN2{W\222kVPr}45y\375mci", 21, 2483},
    {"j0}kG4O:M26{h\353.B\340S-}CwfOeY", 26, 8919},
    {"2uPk", 4, 8459},
    {"hdq5u{{O}~jJ3\012", 14, 11656},
    {"{:wt4W}t2ly{rg}d}", 17, 16019},
    {"b4_eeWjk{Fpc2}Qmq0", 18, 6501},
};

/* The slot as the spec's reference code computes it, searched by index. */
static unsigned int slotReference(const char *key, size_t len) {
    size_t s, e;
    for (s = 0; s < len; s++)
        if (key[s] == '{') break;
    if (s == len) return crc16(key, len) & 16383;
    for (e = s + 1; e < len; e++)
        if (key[e] == '}') break;
    if (e == len || e == s + 1) return crc16(key, len) & 16383;
    return crc16(key + s + 1, e - s - 1) & 16383;
}

int main(int argc, char **argv) {
    (void)argc;
    UT_BEGIN(argv[0]);
    srand(3300);
    size_t ncases = sizeof(redisKeySlots) / sizeof(redisKeySlots[0]);

    TEST("keyHashSlot: every key as redis-server 7.0's CLUSTER KEYSLOT") {
        ASSERT_EQ_LL(ncases, 300);
        for (size_t j = 0; j < ncases; j++) {
            const keySlotCase *c = &redisKeySlots[j];
            if (keyHashSlot(c->key, c->len) != c->slot) {
                printf("  key #%zu (%zu bytes): got %u, redis-server said %u\n", j, c->len, keyHashSlot(c->key, c->len),
                       c->slot);
                ASSERT(keyHashSlot(c->key, c->len) == c->slot);
            }
        }
    }

    TEST("keyHashSlot: the spec's hash tag examples") {
        ASSERT_EQ_LL(keyHashSlot("{user1000}.following", 20), keyHashSlot("user1000", 8));
        ASSERT_EQ_LL(keyHashSlot("{user1000}.followers", 20), keyHashSlot("user1000", 8));
        ASSERT_EQ_LL(keyHashSlot("foo{}{bar}", 10), crc16("foo{}{bar}", 10) & 16383);
        ASSERT_EQ_LL(keyHashSlot("foo{{bar}}zap", 13), keyHashSlot("{bar", 4));
        ASSERT_EQ_LL(keyHashSlot("foo{bar}{zap}", 13), keyHashSlot("bar", 3));
        ASSERT_EQ_LL(keyHashSlot("123456789", 9), 0x31c3 & 16383);
    }

    TEST("keyHashSlot: the tag ends at the first '}' after the first '{'") {
        ASSERT_EQ_LL(keyHashSlot("a}{b}", 5), keyHashSlot("b", 1));
        ASSERT_EQ_LL(keyHashSlot("{a}}", 4), keyHashSlot("a", 1));
        ASSERT_EQ_LL(keyHashSlot("{", 1), crc16("{", 1) & 16383);
        ASSERT_EQ_LL(keyHashSlot("x{y", 3), crc16("x{y", 3) & 16383);
        /* Binary keys: NUL bytes are bytes like any other. */
        ASSERT_EQ_LL(keyHashSlot("\0{\0}", 4), keyHashSlot("\0", 1));
        ASSERT_EQ_LL(keyHashSlot("", 0), 0);
    }

    TEST("keyHashSlot: agrees with the spec's reference code on random keys") {
        char key[24];
        const char alphabet[] = "ab{}{}";
        for (int n = 0; n < 20000; n++) {
            size_t len = (size_t)(rand() % (int)sizeof(key));
            for (size_t j = 0; j < len; j++) key[j] = alphabet[rand() % 6];
            ASSERT_EQ_LL(keyHashSlot(key, len), slotReference(key, len));
        }
    }

    TEST("slot bitmap: set, test, clear, count") {
        unsigned char bm[CLUSTER_SLOT_BITMAP_LEN];
        memset(bm, 0, sizeof(bm));
        clusterSlotBitmapSet(bm, 0);
        clusterSlotBitmapSet(bm, 9);
        clusterSlotBitmapSet(bm, 16383);
        /* Least significant bit first: slot 9 is bit 1 of byte 1. */
        ASSERT_EQ_LL(bm[0], 0x01);
        ASSERT_EQ_LL(bm[1], 0x02);
        ASSERT_EQ_LL(bm[2047], 0x80);
        ASSERT(clusterSlotBitmapTest(bm, 9) && !clusterSlotBitmapTest(bm, 8));
        ASSERT_EQ_LL(clusterSlotBitmapCount(bm), 3);
        clusterSlotBitmapClear(bm, 9);
        ASSERT_EQ_LL(clusterSlotBitmapCount(bm), 2);
        ASSERT(!clusterSlotBitmapTest(bm, 9));
    }

    TEST("slot bitmap: ranges come out in order, whole and split") {
        unsigned char bm[CLUSTER_SLOT_BITMAP_LEN];
        memset(bm, 0, sizeof(bm));
        for (int s = 0; s <= 5460; s++) clusterSlotBitmapSet(bm, s);
        clusterSlotBitmapSet(bm, 5462);
        for (int s = 16380; s < CLUSTER_SLOTS; s++) clusterSlotBitmapSet(bm, s);
        int slot = 0, start, end, n = 0;
        int want[3][2] = {{0, 5460}, {5462, 5462}, {16380, 16383}};
        while (clusterSlotBitmapNextRange(bm, &slot, &start, &end)) {
            ASSERT(n < 3);
            if (n < 3) {
                ASSERT_EQ_LL(start, want[n][0]);
                ASSERT_EQ_LL(end, want[n][1]);
            }
            n++;
        }
        ASSERT_EQ_LL(n, 3);
        memset(bm, 0, sizeof(bm));
        slot = 0;
        ASSERT(!clusterSlotBitmapNextRange(bm, &slot, &start, &end));
    }

    TEST("slot bitmap: setting a range sets exactly its slots") {
        unsigned char bm[CLUSTER_SLOT_BITMAP_LEN], want[CLUSTER_SLOT_BITMAP_LEN];
        for (int round = 0; round < 2000; round++) {
            int a = rand() % CLUSTER_SLOTS, b = rand() % CLUSTER_SLOTS;
            if (round % 4 == 0) b = a + rand() % 20 < CLUSTER_SLOTS ? a + rand() % 20 : a;
            int first = a < b ? a : b, last = a < b ? b : a;
            memset(bm, 0, sizeof(bm));
            memset(want, 0, sizeof(want));
            clusterSlotBitmapSetRange(bm, first, last);
            for (int s = first; s <= last; s++) clusterSlotBitmapSet(want, s);
            ASSERT(memcmp(bm, want, sizeof(bm)) == 0);
        }
        memset(bm, 0, sizeof(bm));
        clusterSlotBitmapSetRange(bm, 0, CLUSTER_SLOTS - 1);
        ASSERT_EQ_LL(clusterSlotBitmapCount(bm), CLUSTER_SLOTS);
    }

    TEST("slot bitmap: ranges agree with a slot-by-slot scan on random bitmaps") {
        unsigned char bm[CLUSTER_SLOT_BITMAP_LEN];
        for (int round = 0; round < 50; round++) {
            /* Long runs of set and clear bytes with ragged edges. */
            int density = rand() % 4;
            for (int j = 0; j < CLUSTER_SLOT_BITMAP_LEN; j++) {
                int r = rand() % 4;
                bm[j] = r < density ? 0xff : (r == 3 ? (unsigned char)rand() : 0);
            }
            unsigned char seen[CLUSTER_SLOT_BITMAP_LEN];
            memset(seen, 0, sizeof(seen));
            int slot = 0, start, end, prev_end = -2, ok = 1;
            while (clusterSlotBitmapNextRange(bm, &slot, &start, &end)) {
                if (start <= prev_end + 1 || end < start) ok = 0; /* disjoint, maximal, ordered */
                for (int s = start; s <= end; s++) clusterSlotBitmapSet(seen, s);
                prev_end = end;
            }
            ASSERT(ok);
            ASSERT(memcmp(seen, bm, sizeof(bm)) == 0);
        }
    }

    TEST("patternHashSlot: a literal pattern is the slot of the key it names") {
        for (size_t j = 0; j < ncases; j++) {
            const keySlotCase *c = &redisKeySlots[j];
            if (memchr(c->key, '*', c->len) || memchr(c->key, '?', c->len) || memchr(c->key, '[', c->len) ||
                memchr(c->key, '\\', c->len))
                continue;
            ASSERT_EQ_LL(patternHashSlot(c->key, c->len), c->slot);
        }
    }

    TEST("patternHashSlot: a literal hash tag fixes the slot, a glob before it does not") {
        ASSERT_EQ_LL(patternHashSlot("{user1000}*", 11), 3443);
        ASSERT_EQ_LL(patternHashSlot("{user1000}.fo?lo[wx]*", 21), 3443);
        ASSERT_EQ_LL(patternHashSlot("x{user1000}\\*", 14), 3443);
        ASSERT_EQ_LL(patternHashSlot("*{user1000}", 11), -1);
        ASSERT_EQ_LL(patternHashSlot("{us*r}:x", 8), -1);
        ASSERT_EQ_LL(patternHashSlot("{us?r}", 6), -1);
        ASSERT_EQ_LL(patternHashSlot("a\\{b}", 5), -1);
        ASSERT_EQ_LL(patternHashSlot("*", 1), -1);
        /* "{}" leaves keys hashed whole: every byte must then be literal. */
        ASSERT_EQ_LL(patternHashSlot("foo{}{bar}", 10), 8363);
        ASSERT_EQ_LL(patternHashSlot("foo{}{bar}*", 11), -1);
        /* No closing '}': hashed whole too. */
        ASSERT_EQ_LL(patternHashSlot("{a", 2), 10276);
        ASSERT_EQ_LL(patternHashSlot("{a*", 3), -1);
    }

    return UT_END();
}
