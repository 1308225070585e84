# Reads OFX files with ofxparse (python3-ofxparse) and prints what it parsed as JSON: for each
# file named, in order, every account's statement, balances and transactions (amounts as the
# Decimal's exact text). Several files in one run: Python and ofxparse start once.
import json, sys
import ofxparse


def day(d):
    return None if d is None else d.strftime('%Y-%m-%d %H:%M:%S')


def statements(ofx):
    out = []
    for a in ofx.accounts:
        s = a.statement
        out.append({
            'account_id': a.account_id,
            'fid': a.institution.fid if a.institution else None,
            'org': a.institution.organization if a.institution else None,
            'currency': s.currency,
            'balance': str(s.balance) if hasattr(s, 'balance') else None,
            'balance_date': day(getattr(s, 'balance_date', None)),
            'start_date': day(getattr(s, 'start_date', None)),
            'end_date': day(getattr(s, 'end_date', None)),
            'transactions': [
                {'id': t.id, 'date': day(t.date), 'amount': str(t.amount), 'payee': t.payee, 'memo': t.memo, 'type': t.type}
                for t in s.transactions
            ],
        })
    return out


files = []
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        files.append(statements(ofxparse.OfxParser.parse(f)))
json.dump(files, sys.stdout, ensure_ascii=False)
