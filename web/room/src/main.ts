/** Entry of the room page. */
document.getElementById('app')!.textContent = 'Loading…';
