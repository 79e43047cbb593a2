import datetime as dt, random, csv, os
out = 'bundle'
rng = random.Random(12)
hol = {'2024-01-01','2024-02-09','2024-02-12','2024-02-13','2024-02-14','2024-02-15','2024-02-16','2024-04-04','2024-04-05'}
days=[]; d=dt.date(2024,1,1)
allcal=[]
while d<=dt.date(2024,4,30):
    iso=d.isoformat(); op = d.weekday()<5 and iso not in hol
    allcal.append((d,op))
    if op: days.append(d)
    d+=dt.timedelta(days=1)
C = lambda d: d.strftime('%Y%m%d')
def w(name, header, rows):
    with open(os.path.join(out,name),'w',newline='') as f:
        wr=csv.writer(f, lineterminator='\n'); wr.writerow(header); wr.writerows(rows)
secs = [
 # ts_code, symbol, name, area, industry, market, exchange, list_status, list_date, delist_date, start price
 ('600519.SH','600519','贵州茅台','贵州','白酒','主板','SSE','L','20010827','',1685.0),
 ('000001.SZ','000001','平安银行','深圳','银行','主板','SZSE','L','19910403','',9.21),
 ('302132.SZ','302132','中航成飞','四川','航空','创业板','SZSE','L','20100827','',48.3),
 ('689009.SH','689009','九号公司','北京','摩托车','科创板','SSE','L','20201029','',38.6),
 ('920799.BJ','920799','艾融软件','上海','软件服务','北交所','BSE','L','20191227','',25.4),
 ('600301.SH','600301','南化股份','广西','化工原料','主板','SSE','L','19960423','',6.12),
 ('000540.SZ','000540','中天金融','贵州','全国地产','主板','SZSE','L','19940202','',1.85),
 ('600087.SH','600087','退市长油','南京','水运','主板','SSE','D','19970617','20240110',1.21),
 ('300750.SZ','300750','宁德时代','福建','电气设备','创业板','SZSE','L','20180611','',160.0),
 ('688981.SH','688981','中芯国际','上海','半导体','科创板','SSE','L','20200716','',52.0),
 ('601318.SH','601318','中国平安','深圳','保险','主板','SSE','L','20070301','',40.2),
 ('900901.SH','900901','云赛B股','上海','IT设备','主板','SSE','L','19920121','',0.38),
]
w('stock_basic.csv',['ts_code','symbol','name','area','industry','market','exchange','list_status','list_date','delist_date'],[s[:10] for s in secs])
w('trade_cal.csv',['exchange','cal_date','is_open','pretrade_date'],
  [('SSE',C(d),1 if op else 0, C(max([x for x in days if x<d], default=dt.date(2023,12,29)))) for d,op in allcal])
EX_DAY = days[50]       # 600519.SH ex-rights (10 for 1 bonus: factor x1.1)
SUSP = days[10:13]      # 000540.SZ suspended
DELIST_LAST = dt.date(2024,1,9)
daily=[];adj=[];basic=[];susp=[]
for s in secs:
    code=s[0]; price=s[10]; factor={'600519.SH':8.4153}.get(code,1.0)
    shares = 125619.78 if code=='600519.SH' else 500000.0
    for i,d in enumerate(days):
        if code=='600087.SH' and d>DELIST_LAST: break
        if code=='000540.SZ' and d in SUSP:
            susp.append((code,C(d),'','S')); adj.append((code,C(d),f'{factor:.4f}')); continue
        pre=price
        if code=='600519.SH' and d==EX_DAY:
            factor=round(factor*1.1,4); pre=round(price/1.1,2)
        lim = 0.045 if code=='600301.SH' else 0.03
        r = rng.uniform(-lim, lim) + 0.002
        close=round(pre*(1+r),2)
        hi=round(max(pre,close)*(1+rng.uniform(0,0.01)),2); lo=round(min(pre,close)*(1-rng.uniform(0,0.01)),2)
        op=round(pre*(1+rng.uniform(-0.005,0.005)),2); hi=max(hi,op); lo=min(lo,op)
        vol=round(rng.uniform(2e4,2e5),2); amount=round(vol*100*close/1000,3)
        daily.append((code,C(d),op,hi,lo,close,pre,round(close-pre,2),round((close/pre-1)*100,4),vol,amount))
        adj.append((code,C(d),f'{factor:.4f}'))
        tr=round(vol*100/(shares*1e4)*100,4)
        basic.append((code,C(d),close,tr,tr,1.0,'' if code=='600301.SH' else round(close/2,4),'' if code=='600301.SH' else round(close/2.1,4),round(close/5,4),1,1,1,1,shares,shares,shares,round(close*shares,2),round(close*shares,2)))
        price=close
# 000001.SZ intraday halt that still trades
susp.append(('000001.SZ',C(days[20]),'09:30-10:30','S')); susp.append(('000001.SZ',C(days[20]),'','R'))
susp.append(('000540.SZ',C(days[13]),'','R'))
w('daily.csv',['ts_code','trade_date','open','high','low','close','pre_close','change','pct_chg','vol','amount'],daily)
w('adj_factor.csv',['ts_code','trade_date','adj_factor'],adj)
w('daily_basic.csv',['ts_code','trade_date','close','turnover_rate','turnover_rate_f','volume_ratio','pe','pe_ttm','pb','ps','ps_ttm','dv_ratio','dv_ttm','total_share','float_share','free_share','total_mv','circ_mv'],basic)
w('suspend_d.csv',['ts_code','trade_date','suspend_timing','suspend_type'],susp)
idx=[];p=3386.35
for d in days:
    c=round(p*(1+rng.uniform(-0.015,0.016)),4)
    idx.append(('000300.SH',C(d),c,p,max(p,c)+5,min(p,c)-5,p,round(c-p,4),round((c/p-1)*100,4),115635220.0,178311083.254)); p=c
w('index_daily.csv',['ts_code','trade_date','close','open','high','low','pre_close','change','pct_chg','vol','amount'],idx)
fh=['ts_code','ann_date','end_date','eps','dt_eps','bps','ocfps','roe','roe_waa','roe_yearly','grossprofit_margin','gross_margin','ocf_to_profit','debt_to_assets','or_yoy','netprofit_yoy','update_flag']
w('fina_indicator.csv',fh,[
 ('600519.SH','20240403','20231231',59.00,59.00,200.00,50.00,33.00,33.00,33.00,90.00,136000000000,80.0,20.00,17.00,18.00,0),
 ('600519.SH','20240403','20231231',59.49,59.49,204.84,53.54,34.19,34.19,34.19,91.96,136453000000,88.68,19.40,18.04,19.16,1),
 ('600519.SH','20240425','20240331',19.16,19.16,224.00,3.83,8.92,8.92,'',92.00,36000000000,15.2,14.60,18.04,15.73,1),
 ('600519.SH','20240520','20240331',19.00,19.00,223.50,3.80,8.80,8.80,'',91.80,35900000000,15.1,14.70,17.90,15.10,1),
 ('000001.SZ','20240315','20231231',2.25,2.25,22.04,3.40,10.25,10.25,10.25,'','',45.0,91.60,-8.45,-4.22,1),
 ('000001.SZ','20240420','20240331',0.66,0.66,22.70,-1.10,3.20,3.20,'','','',-40.0,91.50,-13.98,-2.12,1),
 ('600301.SH','20240410','20231231',-0.21,-0.21,2.46,0.05,-8.50,-8.50,-8.50,4.10,90000000,-30.0,71.20,-12.00,-160.00,1),
 ('302132.SZ','20240328','20231231',1.12,1.12,9.80,1.45,11.80,11.80,11.80,12.40,3000000000,110.0,70.30,25.30,30.10,1),
 ('689009.SH','20240419','20231231',8.35,8.30,80.10,9.90,10.60,10.60,10.60,27.80,2800000000,140.0,48.90,-1.70,-15.60,1),
])
w('namechange.csv',['ts_code','name','start_date','end_date','ann_date','change_reason'],[
 ('600301.SH','南化股份','19960423','20240109','19960423','其他'),
 ('600301.SH','ST南化','20240110','20240220','20240109','其他风险警示'),
 ('600301.SH','南化股份','20240221','','20240220','撤销ST'),
])
last=days[-1]
w('stk_limit.csv',['trade_date','ts_code','pre_close','up_limit','down_limit'],
  [(C(last),r[0],r[6],round(r[6]*1.1,2),round(r[6]*0.9,2)) for r in daily if r[1]==C(last) and r[0] in ('600519.SH','000001.SZ')])
# concept boards: 算力租赁 loses 300750.SZ after 2024-02-29 and gains 601318.SH on 2024-03-01; 000001.SZ is marked
# gone (is_new N) without an out_date, so it is placed nowhere; 数字货币 has a member without dates
w('ths_index.csv',['ts_code','name','count','exchange','list_date','type'],[
 ('886001.TI','算力租赁',3,'A','20230315','N'),
 ('886002.TI','数字货币',1,'A','20191028','N'),
])
w('ths_member.csv',['ts_code','con_code','con_name','weight','in_date','out_date','is_new'],[
 ('886001.TI','688981.SH','中芯国际','','20230315','','Y'),
 ('886001.TI','300750.SZ','宁德时代','','20230601','20240229','N'),
 ('886001.TI','601318.SH','中国平安','','20240301','','Y'),
 ('886001.TI','000001.SZ','平安银行','','20230601','','N'),
 ('886002.TI','000001.SZ','平安银行','','','','Y'),
])
board_rows=[]
for code,step in (('886001.TI',0.004),('886002.TI',-0.002)):
    c=1000.0
    for i,d in enumerate(days):
        pre=c; c=round(c*(1+step+(0.003 if i%2 else -0.003)),3)
        board_rows.append((code,C(d),c,pre,max(c,pre),min(c,pre),pre,round((c+pre)/2,3),round(c-pre,3),round((c/pre-1)*100,4),123456.0,1.5))
w('ths_daily.csv',['ts_code','trade_date','close','open','high','low','pre_close','avg_price','change','pct_change','vol','turnover_rate'],board_rows)
print(len(days), EX_DAY, SUSP, last)
