import { PIECE_BYTES, RAW_PIECE_BYTES, fitsWhole, joinPieces, piecesOf } from './pieces';

describe('checkpoint pieces', () => {
  const text = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ i, s: `"q" \\ é✓ 😀 \n ${i}` })));

  it('cuts a large text into pieces that fit the bound, as bytes and as base64 JSON strings, and joins them back', () => {
    expect(fitsWhole(text)).toBe(false);
    const { pieces, sum } = piecesOf(text);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.every((p) => p.length <= RAW_PIECE_BYTES && JSON.stringify(p.toString('base64')).length <= PIECE_BYTES + 2)).toBe(true);
    expect(sum).toMatchObject({ count: pieces.length, bytes: Buffer.byteLength(text) });
    expect(joinPieces(sum, pieces)).toBe(text);
  });

  it('keeps a text of up to PIECE_BYTES bytes whole', () => {
    expect(fitsWhole('é'.repeat(PIECE_BYTES / 2))).toBe(true);
    expect(fitsWhole('é'.repeat(PIECE_BYTES / 2 + 1))).toBe(false);
  });

  it('joins nothing from pieces that are missing, extra, reordered or other', () => {
    const { pieces, sum } = piecesOf(text);
    const other = piecesOf(text.replace('39999', '39998'));
    expect(joinPieces(sum, pieces.slice(1))).toBeNull();
    expect(joinPieces(sum, [...pieces, pieces[0]])).toBeNull();
    expect(joinPieces(sum, [pieces[1], pieces[0], ...pieces.slice(2)])).toBeNull();
    expect(joinPieces(sum, other.pieces)).toBeNull();
    expect(joinPieces(sum, [...pieces.slice(0, -1), Buffer.from('other bytes')])).toBeNull();
  });
});
